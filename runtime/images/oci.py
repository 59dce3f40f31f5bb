"""Reproducible OCI images: layers from a list of entries, the image config and the manifest.

A layer is a tar of its entries sorted by path (their parent directories added), every header with
mtime 0 and owner 0:0, gzipped with mtime 0 — so the same entries give the same `diff_id` (sha256 of
the tar) and the same `digest` (sha256 of the gzip), on any host at any time. A layer of one big binary
(kubectl's 60 MB) may stay an uncompressed tar: its digest is its diff_id, and no session pays seconds
of gzip to learn the registry has it already."""
from __future__ import annotations

import hashlib
import io
import json
import posixpath
import tarfile
from dataclasses import dataclass, field
from functools import cached_property
from typing import Union

from runtime.images.gzipped import gzipped

MANIFEST = "application/vnd.oci.image.manifest.v1+json"
INDEX = "application/vnd.oci.image.index.v1+json"
CONFIG = "application/vnd.oci.image.config.v1+json"
LAYER_GZIP = "application/vnd.oci.image.layer.v1.tar+gzip"
LAYER_TAR = "application/vnd.oci.image.layer.v1.tar"
DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json"
DOCKER_LIST = "application/vnd.docker.distribution.manifest.list.v2+json"
DOCKER_CONFIG = "application/vnd.docker.container.image.v1+json"
DOCKER_LAYER_GZIP = "application/vnd.docker.image.rootfs.diff.tar.gzip"
DOCKER_LAYER_TAR = "application/vnd.docker.image.rootfs.diff.tar"
MANIFESTS = (MANIFEST, DOCKER_MANIFEST)  # what a registry client accepts for one platform's image


@dataclass(frozen=True)
class File:
    path: str  # relative to the root: "bin/busybox"
    data: bytes
    mode: int = 0o644


@dataclass(frozen=True)
class Dir:
    path: str
    mode: int = 0o755


@dataclass(frozen=True)
class Symlink:
    path: str
    target: str  # relative ("busybox", "../lib/x"): it must hold inside any root the layer is unpacked to


Entry = Union[File, Dir, Symlink]


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Blob:
    """Content addressed by its digest, with the media type it travels under."""

    media_type: str
    data: bytes = field(repr=False)

    @cached_property
    def digest(self) -> str:
        return sha256(self.data)

    def descriptor(self, **extra) -> dict:
        return {"mediaType": self.media_type, "digest": self.digest, "size": len(self.data), **extra}


@dataclass(frozen=True)
class Layer:
    tar: bytes = field(repr=False)
    compressed: bool = True

    @cached_property
    def diff_id(self) -> str:
        return sha256(self.tar)

    @cached_property
    def blob(self) -> Blob:
        if not self.compressed:
            return Blob(LAYER_TAR, self.tar)
        return Blob(LAYER_GZIP, gzipped(self.tar, self.diff_id))


def _clean(path: str) -> str:
    clean = posixpath.normpath(path.lstrip("/"))
    if clean in (".", "") or clean.startswith(".."):
        raise ValueError(f"layer entry path {path!r} is not inside the image")
    return clean


def _with_parents(entries: list[Entry]) -> dict[str, Entry]:
    by_path: dict[str, Entry] = {}
    for entry in entries:
        path = _clean(entry.path)
        parent = posixpath.dirname(path)
        while parent and parent not in by_path:
            by_path[parent] = Dir(parent)
            parent = posixpath.dirname(parent)
        by_path[path] = entry
    return by_path


def _header(path: str, entry: Entry) -> tarfile.TarInfo:
    info = tarfile.TarInfo(path)
    info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
    if isinstance(entry, Dir):
        info.type, info.mode = tarfile.DIRTYPE, entry.mode
    elif isinstance(entry, Symlink):
        if entry.target.startswith("/"):
            raise ValueError(f"symlink {path} -> {entry.target}: an image's links are relative")
        info.type, info.mode, info.linkname = tarfile.SYMTYPE, 0o777, entry.target
    else:
        info.mode, info.size = entry.mode, len(entry.data)
    return info


def layer(entries: list[Entry], compressed: bool = True) -> Layer:
    """The layer holding `entries` (a later entry for the same path wins), byte for byte reproducible."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path, entry in sorted(_with_parents(entries).items()):
            data = io.BytesIO(entry.data) if isinstance(entry, File) else None
            tar.addfile(_header(path, entry), data)
    return Layer(out.getvalue(), compressed)


@dataclass(frozen=True)
class Config:
    """The runtime part of an image config (OCI image-spec `config`); empty fields are left out."""

    env: tuple[str, ...] = ()
    entrypoint: tuple[str, ...] = ()
    cmd: tuple[str, ...] = ()
    user: str = ""
    working_dir: str = ""
    labels: tuple[tuple[str, str], ...] = ()
    stop_signal: str = ""
    exposed_ports: tuple[str, ...] = ()  # "80/tcp"

    def as_json(self) -> dict:
        fields = {"User": self.user, "Env": list(self.env), "Entrypoint": list(self.entrypoint),
                  "Cmd": list(self.cmd), "WorkingDir": self.working_dir, "Labels": dict(self.labels),
                  "StopSignal": self.stop_signal, "ExposedPorts": {port: {} for port in self.exposed_ports}}
        return {key: value for key, value in fields.items() if value}


@dataclass(frozen=True)
class Image:
    """An image ready to push: its layers, its config blob and the manifest naming them."""

    layers: tuple[Layer, ...]
    config: Blob
    manifest: Blob

    def blobs(self) -> list[Blob]:
        """Every blob the manifest names, config first."""
        return [self.config, *(layer.blob for layer in self.layers)]


def image(layers: list[Layer], config: Config, architecture: str = "amd64") -> Image:
    body = {"architecture": architecture, "os": "linux", "config": config.as_json(),
            "rootfs": {"type": "layers", "diff_ids": [lay.diff_id for lay in layers]}}
    config_blob = Blob(CONFIG, _canonical(body))
    manifest = {"schemaVersion": 2, "mediaType": MANIFEST, "config": config_blob.descriptor(),
                "layers": [lay.blob.descriptor() for lay in layers]}
    return Image(tuple(layers), config_blob, Blob(MANIFEST, _canonical(manifest)))


def _canonical(body: dict) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
