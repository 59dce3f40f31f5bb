"""Image references as the local registry stores them: `busybox:1.35` is `library/busybox` tag `1.35`.

The local registry stands in for docker.io (containerd's mirror), so a name is normalized as Docker
normalizes it: no domain means docker.io, and a one-part docker.io name lives under `library/`."""
from __future__ import annotations

import re
from dataclasses import dataclass

_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_REPOSITORY = re.compile(rf"^{_COMPONENT}(?:/{_COMPONENT})*$")
_TAG = re.compile(r"^[\w][\w.-]{0,127}$")
DOCKER_HUB = ("docker.io", "index.docker.io", "registry-1.docker.io")


class InvalidReference(ValueError):
    """A name that is not an image reference (Kubernetes' InvalidImageName)."""


@dataclass(frozen=True)
class Reference:
    repository: str  # library/busybox
    tag: str  # 1.35

    def __str__(self) -> str:
        return f"{self.repository}:{self.tag}"


def _domain_of(name: str) -> tuple[str, str]:
    first, sep, rest = name.partition("/")
    if sep and ("." in first or ":" in first or first == "localhost"):
        return first, rest
    return "", name


def parse(ref: str, default_tag: str = "latest") -> Reference:
    """`busybox:1.35`, `docker.io/library/busybox`, `127.0.0.1:5000/kubus/pause:catatonit-0.1.7`, …"""
    text = ref.strip()
    if "@" in text:
        raise InvalidReference(f"couldn't parse image name {ref!r}: a digest names no tag to store it under")
    domain, path = _domain_of(text)
    name, _, tag = path.rpartition(":") if ":" in path.rpartition("/")[2] else (path, "", default_tag)
    if (not domain or domain in DOCKER_HUB) and "/" not in name:
        name = f"library/{name}"
    if not _REPOSITORY.match(name) or not _TAG.match(tag):
        raise InvalidReference(f"couldn't parse image name {ref!r}: invalid reference format")
    return Reference(name, tag)
