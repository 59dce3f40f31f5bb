"""The images kubus needs, built from the OS's packages and tagged by the packaged version — never a tag
the image is not: `library/busybox:1.35.0` is Debian's busybox-static 1.35.0, and so on.

- busybox: the static /bin/busybox and a relative symlink per applet, root and nobody/nogroup, /tmp 1777
- pause: catatonit in pause mode (`-P`), the sandbox image
- python: Debian's python3.11 (the interpreter, its minimal and standard library, the shared libraries
  `ldd` names and the dynamic loader) over the busybox layer, so `sh` works too
- python-kubernetes: python and a layer of Debian's python3-kubernetes (the official client) and the
  python3-* packages it depends on (their dist-packages, the libraries their extensions need); built
  where that package is installed (`make containers` installs it)
- kubectl: the busybox layer and the host's kubectl binary (a static Go program) at /usr/local/bin/kubectl,
  tagged by its `version --client`; its layer is left uncompressed (60 MB of gzip is seconds every session)
- nginx: Debian's nginx over the busybox layer, laid out as Docker's nginx image (nginx.py); its .deb
  files are downloaded, never installed (debs.py), and where they cannot be the image is skipped"""
from __future__ import annotations

import functools
import json
import os
import re
import shutil
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from runtime.images import debs, oci
from runtime.images.registry import Client

BUSYBOX = Path("/bin/busybox")
CATATONIT = Path("/usr/bin/catatonit")
PYTHON = Path("/usr/bin/python3.11")
PYTHON_PACKAGES = ("python3.11-minimal", "libpython3.11-minimal", "libpython3.11-stdlib")
PYTHON_KEEP = ("usr/bin/", "usr/lib/python3.11/", "etc/python3.11/")
PYTHON_SKIP_DIRS = frozenset({"test", "tests", "idlelib", "tkinter", "ensurepip", "__pycache__", "turtledemo"})
PYTHON_SKIP_MODULES = re.compile(r"^(_test|_ctypes_test|_xxtestfuzz|xxlimited|_xxsubinterpreters)")
CLIENT = "python3-kubernetes"
DIST_PACKAGES = "usr/lib/python3/dist-packages/"
PASSWD = "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n"
GROUP = "root:x:0:\nnogroup:x:65534:\n"


class MissingPackage(RuntimeError):
    """An OS package a recipe is built from is not installed."""


def package_version(package: str) -> str:
    """The upstream version of an installed Debian package: `1:1.35.0-4+deb12u1+b1` → `1.35.0`."""
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True,
                             text=True, check=False)
    except FileNotFoundError:
        raise MissingPackage(f"dpkg-query is not here: the images are built from Debian packages") from None
    if out.returncode or not out.stdout.strip():
        raise MissingPackage(f"the package {package} is not installed (`make containers` installs it)")
    return upstream(out.stdout.strip())


def upstream(debian_version: str) -> str:
    version = debian_version.partition(":")[2] or debian_version
    return version.rpartition("-")[0] or version


def codename() -> str:
    for line in Path("/etc/os-release").read_text().splitlines():
        if line.startswith("VERSION_CODENAME="):
            return line.partition("=")[2].strip('"')
    raise MissingPackage("/etc/os-release names no VERSION_CODENAME")


def _read(path: Path, mode: int | None = None) -> oci.File:
    return oci.File(str(path), path.read_bytes(), mode if mode is not None else stat.S_IMODE(path.stat().st_mode))


# -- busybox ---------------------------------------------------------------------------------------

@functools.cache
def busybox_entries() -> tuple[oci.Entry, ...]:
    """The busybox files, read once a build (`build_and_push` starts afresh): every image but pause has them."""
    applets = subprocess.run([str(BUSYBOX), "--list"], capture_output=True, text=True, check=True).stdout.split()
    return (oci.File("bin/busybox", BUSYBOX.read_bytes(), 0o755),
            *(oci.Symlink(f"bin/{name}", "busybox") for name in applets if name != "busybox"),
            oci.File("etc/passwd", PASSWD.encode()), oci.File("etc/group", GROUP.encode()),
            oci.Dir("tmp", 0o1777), oci.Dir("root", 0o700))


@functools.cache
def busybox_layer() -> oci.Layer:
    return oci.layer(busybox_entries())


def busybox() -> oci.Image:
    return oci.image([busybox_layer()],
                     oci.Config(env=("PATH=/bin",), cmd=("sh",), labels=_labels("busybox-static")))


# -- pause -----------------------------------------------------------------------------------------

def pause() -> oci.Image:
    return oci.image([oci.layer([oci.File("catatonit", CATATONIT.read_bytes(), 0o755)])],
                     oci.Config(entrypoint=("/catatonit", "-P"), labels=_labels("catatonit")))


# -- python ----------------------------------------------------------------------------------------

def _packaged_files(packages: tuple[str, ...]) -> list[Path]:
    out = subprocess.run(["dpkg", "-L", *packages], capture_output=True, text=True, check=True).stdout
    return [Path(line) for line in out.splitlines() if line.startswith("/")]


def _kept(path: Path) -> bool:
    rel = str(path).lstrip("/")
    if not rel.startswith(PYTHON_KEEP) or PYTHON_SKIP_DIRS & set(path.parts):
        return False
    return not (path.parent.name == "lib-dynload" and PYTHON_SKIP_MODULES.match(path.name))


def _relative_link(path: Path) -> oci.Symlink:
    """The packaged symlink, its absolute target made relative so it holds inside the image's root."""
    target = os.readlink(path)
    if target.startswith("/"):
        target = os.path.relpath(target, str(path.parent))
    return oci.Symlink(str(path), target)


def shared_libraries(binaries: list[Path]) -> list[oci.File]:
    """The libraries `ldd` names for `binaries` (and the dynamic loader), each at the path it names."""
    found: dict[str, Path] = {}
    for binary in binaries:
        out = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=False).stdout
        for line in out.splitlines():
            match = re.search(r"(?:=>\s*)?(/\S+)\s+\(0x", line)
            if match:
                found[match.group(1)] = Path(os.path.realpath(match.group(1)))
    return [oci.File(named, real.read_bytes(), 0o755) for named, real in sorted(found.items())]


@functools.cache
def python_entries() -> tuple[oci.Entry, ...]:
    """The interpreter's files, read once a build: python, python-kubernetes and kopf are built over them."""
    entries: list[oci.Entry] = []
    binaries = []
    for path in filter(_kept, _packaged_files(PYTHON_PACKAGES)):
        if path.is_symlink():
            entries.append(_relative_link(path))
        elif path.is_file():
            entries.append(_read(path))
            if path.suffix == ".so" or path == PYTHON:
                binaries.append(path)
    return (*entries, *shared_libraries(binaries), oci.Symlink("usr/bin/python3", "python3.11"))


@functools.cache
def python_layer() -> oci.Layer:
    """Made once a build: python, python-kubernetes and kopf share it (its gzip is kept on disk: gzipped.py)."""
    return oci.layer(python_entries())


def python() -> oci.Image:
    layers = [busybox_layer(), python_layer()]
    env = ("PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8")
    return oci.image(layers, oci.Config(env=env, cmd=("python3",), labels=_labels(*PYTHON_PACKAGES)))


def python_closure(package: str) -> list[str]:
    """`package` and the installed python3-* packages it depends on, all the way down (the interpreter's own
    aside; an optional dependency not installed, or a virtual one, left out)."""
    seen, found, todo = set(), [], [package]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        out = subprocess.run(["dpkg-query", "-W", "-f", "${Status}|${Depends}", name], capture_output=True, text=True)
        status, _, depends = out.stdout.partition("|")
        if out.returncode or not status.endswith(" installed"):
            todo += _providers().get(name, [])  # a virtual package: whoever installed provides it
            continue
        found.append(name)
        for choice in depends.split(","):
            dep = choice.split("|")[0].split("(")[0].strip().partition(":")[0]
            if dep.startswith("python3-") and dep not in ("python3-minimal", "python3-distutils"):
                todo.append(dep)
    return sorted(found)


@functools.cache
def _providers() -> dict[str, list[str]]:
    """Virtual package → the installed packages that provide it."""
    out = subprocess.run(["dpkg-query", "-W", "-f", "${Package}|${Provides}\n"], capture_output=True, text=True)
    found: dict[str, list[str]] = {}
    for line in out.stdout.splitlines():
        package, _, provides = line.partition("|")
        for virtual in filter(None, (p.split("(")[0].strip() for p in provides.split(","))):
            found.setdefault(virtual, []).append(package)
    return found


def dist_packages_entries(packages: list[str]) -> list[oci.Entry]:
    entries: list[oci.Entry] = []
    binaries = []
    for path in _packaged_files(tuple(packages)):
        if not str(path).lstrip("/").startswith(DIST_PACKAGES) or "__pycache__" in path.parts:
            continue
        if path.is_symlink():
            entries.append(_relative_link(path))
        elif path.is_file():
            entries.append(_read(path))
            binaries += [path] if path.suffix == ".so" else []
    return [*entries, *shared_libraries(binaries)]


def python_kubernetes() -> oci.Image:
    layers = [busybox_layer(), python_layer(), oci.layer(dist_packages_entries(python_closure(CLIENT)))]
    env = ("PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8")
    return oci.image(layers, oci.Config(env=env, cmd=("python3",), labels=_labels(*PYTHON_PACKAGES, CLIENT)))


def _labels(*packages: str) -> tuple[tuple[str, str], ...]:
    """Where the image comes from, in the OCI annotation keys' words."""
    return source(" ".join(f"{p}={package_version(p)}" for p in packages))


def source(versions: str) -> tuple[tuple[str, str], ...]:
    return (("org.opencontainers.image.source", "debian packages"), ("org.opencontainers.image.version",
            versions), ("org.opencontainers.image.vendor", "kubus, built from the OS's packages"))


# -- the table -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Recipe:
    repository: str
    tags: tuple[str, ...]
    build: Callable[[], oci.Image]
    optional: bool = False  # skipped, with a line saying why, when what it needs is missing (offline)

    @property
    def references(self) -> list[str]:
        return [f"{self.repository}:{tag}" for tag in self.tags]


def recipes() -> list[Recipe]:
    """busybox, pause, python (and python-kubernetes, kubectl, nginx where they can be), each tagged by the
    version of what it is built from (`1.35.0` and `1.35`); kopf by the version of its pinned wheel (`kopf.py`)."""
    from runtime.images import kopf, kubectl  # they build on this module's layers
    box = package_version("busybox-static")
    pause_version = package_version("catatonit")
    py = package_version("python3.11")
    return [Recipe("library/busybox", (box, _minor(box)), busybox),
            Recipe("kubus/pause", (f"catatonit-{pause_version}",), pause),
            Recipe("kubus/python", (f"{py}-{codename()}",), python), *_client_recipe(), *kubectl.recipe(),
            *_nginx_recipe(), Recipe("kubus/kopf", (kopf.VERSION,), kopf.image, optional=True)]


def _client_recipe() -> list[Recipe]:
    """kubus/python-kubernetes:<client version>-<codename>, where the client's package is installed."""
    try:
        version = package_version(CLIENT)
    except MissingPackage:
        return []
    return [Recipe("kubus/python-kubernetes", (f"{version}-{codename()}",), python_kubernetes)]


def _nginx_recipe() -> list[Recipe]:
    """library/nginx:<Debian's upstream version> and its minor, where its packages can be downloaded."""
    from runtime.images import nginx  # it builds on this module's layers
    if unavailable():
        return []
    web = upstream(debs.fetch(nginx.PACKAGES)["nginx"].version)
    return [Recipe("library/nginx", (web, _minor(web)), nginx.image)]


def unavailable() -> list[str]:
    """Why an image that needs downloaded packages cannot be built here (nothing when all can)."""
    from runtime.images import nginx
    try:
        debs.fetch(nginx.PACKAGES)
    except debs.Unavailable as exc:
        return [f"nginx skipped: {exc}"]
    return []


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


ESSENTIAL = frozenset({"library/busybox", "kubus/pause"})  # every sandbox's image, and the examples'


def build_and_push(client: Client, progress: Callable[[str], None] = lambda line: None,
                   only: Callable[[str], bool] = lambda repository: True) -> dict[str, str]:
    """Build every recipe (whose repository `only` accepts) and push it (blobs the registry has are
    skipped; in one call, busybox's layer is mounted into the others'); reference → digest."""
    digests: dict[str, str] = {}
    held_by: dict[str, str] = {}  # blob digest → a repository holding it
    afresh()
    for why in unavailable() if only("library/nginx") else ():
        progress(why)
    for recipe in filter(lambda r: only(r.repository), recipes()):
        progress(f"building {', '.join(recipe.references)}")
        try:
            built = recipe.build()
        except MissingPackage as exc:
            if not recipe.optional:
                raise
            progress(f"skipped {recipe.references[0]}: {exc}")
            continue
        pushed = client.push(recipe.repository, built.blobs(), built.manifest, list(recipe.tags), held_by)
        held_by.update({blob.digest: recipe.repository for blob in built.blobs()})
        size = sum(len(blob.data) for blob in built.blobs())
        progress(f"pushed {recipe.references[0]} {pushed.digest} ({_mb(size)}; {len(pushed.uploaded)} blobs "
                 f"uploaded, {len(pushed.mounted)} mounted, {len(pushed.skipped)} already there)")
        digests.update({ref: pushed.digest for ref in recipe.references})
    return digests


def afresh() -> None:
    """Forget the files and layers read for the last build: each build reads the packages again, so a
    second build proves the first reproducible."""
    for made in (busybox_entries, busybox_layer, python_entries, python_layer):
        made.cache_clear()


def _mb(size: int) -> str:
    return f"{size / 1e6:.1f} MB"
