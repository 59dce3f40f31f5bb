"""`kubus/kopf:<kopf version>`: an operator image of kopf (nolar/kopf) over kubus's python image.

Three layers on top of python's two: Debian's packages of what kopf imports (aiohttp and its
multidict, yarl, frozenlist, aiosignal, async-timeout, attrs, charset-normalizer, idna; click,
python-json-logger, iso8601, PyYAML), their files under /usr/lib/python3/dist-packages and the shared
libraries their extension modules need; then kopf itself, a pure-Python wheel from PyPI pinned by
version and sha256 (fetched once with pip into the cache, checked before use). Debian's aiohttp 3.8 and
click 8.1 are older than kopf 1.39+ asks for, so the pin is 1.38.0, the last that takes them."""
from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

from runtime.images import oci
from runtime.images.recipes import (PYTHON_PACKAGES, MissingPackage, _labels, _packaged_files, _read, _relative_link,
                                    busybox_entries, busybox_layer, python_entries, python_layer, shared_libraries)

VERSION = "1.38.0"
WHEEL = f"kopf-{VERSION}-py3-none-any.whl"
SHA256 = "2384b8021032d9f87e53a6b46097c47e566d9280c838809483698640e1b36df0"
PACKAGES = ("python3-aiohttp", "python3-multidict", "python3-yarl", "python3-frozenlist", "python3-aiosignal",
            "python3-async-timeout", "python3-attr", "python3-charset-normalizer", "python3-idna", "python3-click",
            "python3-pythonjsonlogger", "python3-iso8601", "python3-yaml")
SITE = "usr/lib/python3/dist-packages/"
CACHE = Path(os.environ.get("KUBUS_WHEEL_CACHE", Path.home() / ".cache" / "kubus" / "wheels"))


class WheelUnavailable(MissingPackage):
    """The pinned wheel is not cached and PyPI did not give it (offline), or gave other bytes."""


def wheel(cache: Path = CACHE) -> bytes:
    """The pinned wheel's bytes, checked against its sha256."""
    path = cache / WHEEL
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        got = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
                              "--disable-pip-version-check", "-q", "-d", str(cache), f"kopf=={VERSION}"],
                             capture_output=True, text=True, check=False, timeout=300)
        if got.returncode or not path.exists():
            raise WheelUnavailable(f"{WHEEL} is not cached and pip could not fetch it: {got.stderr.strip()[-300:]}")
    data = path.read_bytes()
    if hashlib.sha256(data).hexdigest() != SHA256:
        path.unlink()
        raise WheelUnavailable(f"{WHEEL}: sha256 {hashlib.sha256(data).hexdigest()} is not the pinned {SHA256}")
    return data


def wheel_entries(data: bytes) -> list[oci.Entry]:
    """The wheel installed as pip would lay it out in Debian's site directory (no scripts: `python3 -m kopf`)."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return [oci.File(SITE + info.filename, archive.read(info), 0o644)
                for info in archive.infolist() if not info.is_dir()]


def dependency_entries(beneath: frozenset[str] = frozenset()) -> list[oci.Entry]:
    """The packages' files, and the shared libraries their modules need that `beneath` (the lower layers'
    paths) does not hold yet."""
    for package in PACKAGES:
        if subprocess.run(["dpkg-query", "-W", package], capture_output=True, check=False).returncode:
            raise MissingPackage(f"the package {package} is not installed (`make containers` installs it)")
    entries: list[oci.Entry] = []
    modules = []
    for path in _packaged_files(PACKAGES):
        if not str(path).lstrip("/").startswith(SITE) or "__pycache__" in path.parts:
            continue
        if path.is_symlink():
            entries.append(_relative_link(path))
        elif path.is_file():
            entries.append(_read(path))
            if path.suffix == ".so":
                modules.append(path)
    return [*entries, *(lib for lib in shared_libraries(modules) if lib.path.lstrip("/") not in beneath)]


def image() -> oci.Image:
    box, python = busybox_entries(), python_entries()
    beneath = frozenset(entry.path.lstrip("/") for entry in (*box, *python))
    layers = [busybox_layer(), python_layer(), oci.layer(dependency_entries(beneath)),
              oci.layer(wheel_entries(wheel()))]
    env = ("PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "PYTHONUNBUFFERED=1")
    labels = dict(_labels(*PYTHON_PACKAGES, *PACKAGES))
    labels["org.opencontainers.image.version"] += f" kopf={VERSION} (PyPI {WHEEL} sha256:{SHA256})"
    return oci.image(layers, oci.Config(env=env, entrypoint=("python3", "-m", "kopf"), cmd=("--help",),
                                        labels=tuple(labels.items())))
