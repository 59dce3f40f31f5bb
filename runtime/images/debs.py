"""Debian packages an image is built from without installing them on the host: `apt-get download` puts
the .deb in a cache (once), `dpkg-deb` reads it. Installing Debian's nginx would start and enable a
web server on the host's port 80; a downloaded .deb is only read.

Same .deb, same bytes: the cache keeps the version first downloaded until it is removed."""
from __future__ import annotations

import io
import os
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path

from runtime.images import oci

CACHE = Path(os.environ.get("KUBUS_DEB_CACHE") or Path.home() / ".cache" / "kubus" / "debs")


class Unavailable(RuntimeError):
    """A package could be neither found in the cache nor downloaded."""


@dataclass(frozen=True)
class Deb:
    path: Path

    def field(self, name: str) -> str:
        return subprocess.run(["dpkg-deb", "-f", str(self.path), name], capture_output=True, text=True,
                              check=True).stdout.strip()

    @property
    def version(self) -> str:
        """The Debian version: `1.22.1-9+deb12u11`."""
        return self.field("Version")

    def members(self) -> dict[str, tuple[tarfile.TarInfo, bytes]]:
        """Its files, directories and links by path (`etc/nginx/mime.types`), each with its bytes."""
        tar_bytes = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(self.path)], capture_output=True,
                                   check=True).stdout
        found = {}
        with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as tar:
            for info in tar:
                path = info.name.removeprefix("./").rstrip("/")
                data = tar.extractfile(info).read() if info.isfile() else b""
                if path:
                    found[path] = (info, data)
        return found

    def entries(self, keep) -> list[oci.Entry]:
        """The members whose path `keep` accepts, as layer entries (modes kept, owners and times not)."""
        result: list[oci.Entry] = []
        for path, (info, data) in sorted(self.members().items()):
            if not keep(path):
                continue
            if info.isdir():
                result.append(oci.Dir(path, info.mode))
            elif info.issym():
                result.append(oci.Symlink(path, info.linkname))
            elif info.isfile():
                result.append(oci.File(path, data, info.mode))
        return result


def fetch(packages: tuple[str, ...], cache: Path = CACHE) -> dict[str, Deb]:
    """package → its .deb in `cache`, downloaded together (so their versions match) when any is missing."""
    found = _cached(packages, cache)
    if len(found) == len(packages):
        return found
    cache.mkdir(parents=True, exist_ok=True)
    done = _download(packages, cache)
    if done.returncode and os.geteuid() == 0:  # package lists missing or stale (a fresh image): update once
        subprocess.run(["apt-get", "update", "-qq"], capture_output=True)
        done = _download(packages, cache)
    if done.returncode:
        words = (done.stderr.strip().splitlines() or ["apt-get download failed"])[-1]
        raise Unavailable(f"cannot download {' '.join(packages)}: {words}")
    found = _cached(packages, cache)
    missing = [p for p in packages if p not in found]
    if missing:
        raise Unavailable(f"apt-get download left no .deb for {' '.join(missing)} in {cache}")
    return found


def _download(packages: tuple[str, ...], cache: Path) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(["apt-get", "download", "-q", *packages], cwd=cache, capture_output=True, text=True)
    except FileNotFoundError:
        raise Unavailable(f"no apt-get here to download {' '.join(packages)}") from None


def _cached(packages: tuple[str, ...], cache: Path) -> dict[str, Deb]:
    found = {}
    for package in packages:
        files = sorted(cache.glob(f"{package}_*.deb")) if cache.is_dir() else []
        if files:
            found[package] = Deb(files[-1])
    return found
