"""Images from archives into the local registry: a `docker save` tar (manifest.json, the config, layer
tars) or an OCI image layout tar (oci-layout, index.json, blobs/sha256/…), under the names the
archive gives (RepoTags; the `io.containerd.image.name` or `org.opencontainers.image.ref.name`
annotations) or the one `--name` gives.

A docker layer travels as it was saved — an uncompressed tar is pushed as
`application/vnd.docker.image.rootfs.diff.tar`, its digest its diff_id — so nothing is recompressed;
an OCI layout's manifest is pushed byte for byte, so its digest is the one the archive names. A tar
with both (`ctr images export`, docker 25's `save`) is read as the OCI layout."""
from __future__ import annotations

import json
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from runtime.images import oci, references
from runtime.images.registry import Client

GZIP_MAGIC = b"\x1f\x8b"
NAME_ANNOTATIONS = ("io.containerd.image.name", "org.opencontainers.image.ref.name")


class BadArchive(ValueError):
    """Not a docker or OCI archive kubus can read, or one that names no image to store."""


@dataclass(frozen=True)
class Archived:
    """One image of an archive: the names it was saved under, its blobs and its manifest."""

    names: tuple[str, ...]
    blobs: tuple[oci.Blob, ...]
    manifest: oci.Blob
    tag: str = ""  # an OCI layout's `ref.name` that is a tag only: the tag for `--name` without one


class _Tar:
    def __init__(self, tar: tarfile.TarFile, source: str):
        self.tar, self.source = tar, source

    def has(self, name: str) -> bool:
        try:
            self.tar.getmember(name)
            return True
        except KeyError:
            return False

    def read(self, name: str) -> bytes:
        try:
            member = self.tar.extractfile(name)
        except KeyError:
            member = None
        if member is None:
            raise BadArchive(f"{self.source}: {name} is missing from the archive")
        return member.read()

    def json(self, name: str):
        try:
            return json.loads(self.read(name))
        except ValueError as exc:
            raise BadArchive(f"{self.source}: {name} is not JSON ({exc})") from None

    def blob(self, digest: str, media_type: str) -> oci.Blob:
        algorithm, _, hex_ = digest.partition(":")
        blob = oci.Blob(media_type, self.read(f"blobs/{algorithm}/{hex_}"))
        if blob.digest != digest:
            raise BadArchive(f"{self.source}: blob {digest} does not match its content ({blob.digest})")
        return blob


def read(path: Path) -> list[Archived]:
    """The images in a docker-save or OCI-layout tar."""
    try:
        with tarfile.open(path) as tar:
            archive = _Tar(tar, str(path))
            if archive.has("index.json"):  # `ctr images export` and docker 25's `save` write both: OCI first
                return [_oci_image(archive, d) for d in archive.json("index.json").get("manifests", [])]
            if archive.has("manifest.json"):
                return [_docker_image(archive, entry) for entry in archive.json("manifest.json")]
    except (OSError, tarfile.TarError) as exc:
        raise BadArchive(f"{path}: not a readable tar archive ({exc})") from None
    except (KeyError, TypeError, AttributeError) as exc:
        raise BadArchive(f"{path}: the archive's manifest is not as docker or OCI write it (no {exc})") from None
    raise BadArchive(f"{path}: neither a docker archive (manifest.json) nor an OCI layout (index.json)")


def _docker_image(archive: _Tar, entry: dict) -> Archived:
    config = oci.Blob(oci.DOCKER_CONFIG, archive.read(entry["Config"]))
    layers = [_docker_layer(archive.read(name)) for name in entry.get("Layers") or []]
    manifest = {"schemaVersion": 2, "mediaType": oci.DOCKER_MANIFEST, "config": config.descriptor(),
                "layers": [layer.descriptor() for layer in layers]}
    body = json.dumps(manifest, indent=3).encode()
    return Archived(tuple(entry.get("RepoTags") or ()), (config, *layers), oci.Blob(oci.DOCKER_MANIFEST, body))


def _docker_layer(data: bytes) -> oci.Blob:
    return oci.Blob(oci.DOCKER_LAYER_GZIP if data[:2] == GZIP_MAGIC else oci.DOCKER_LAYER_TAR, data)


def _oci_image(archive: _Tar, descriptor: dict, named: tuple[str, str] = ("", "")) -> Archived:
    name, tag = named if any(named) else _names(descriptor.get("annotations") or {})
    media_type = descriptor.get("mediaType", oci.MANIFEST)
    if media_type in (oci.INDEX, oci.DOCKER_LIST):
        index = archive.json(_blob_path(descriptor["digest"]))
        return _oci_image(archive, _this_platform(index.get("manifests") or [], archive.source), (name, tag))
    manifest = archive.blob(descriptor["digest"], media_type)
    body = json.loads(manifest.data)
    parts = [body["config"], *body.get("layers", [])]
    blobs = tuple(archive.blob(d["digest"], d["mediaType"]) for d in parts)
    return Archived((name,) if name else (), blobs, manifest, tag)


def _names(annotations: dict) -> tuple[str, str]:
    """(a full name, a bare tag): containerd writes the name in its own key, `ref.name` may be a tag only."""
    full = annotations.get(NAME_ANNOTATIONS[0], "")
    ref_name = annotations.get(NAME_ANNOTATIONS[1], "")
    if ":" in ref_name or "/" in ref_name:
        return full or ref_name, ""
    return full, ref_name


def _blob_path(digest: str) -> str:
    algorithm, _, hex_ = digest.partition(":")
    return f"blobs/{algorithm}/{hex_}"


def _this_platform(manifests: list[dict], source: str) -> dict:
    for descriptor in manifests:
        platform = descriptor.get("platform") or {}
        if platform.get("os", "linux") == "linux" and platform.get("architecture", "amd64") == "amd64":
            return descriptor
    raise BadArchive(f"{source}: the image index has no linux/amd64 manifest")


def import_archive(client: Client, path: Path, name: str | None = None,
                   progress: Callable[[str], None] = lambda line: None) -> dict[str, str]:
    """Push every image of the archive under its names (or `name`); image reference → digest."""
    images = read(path)
    if name and len(images) != 1:
        raise BadArchive(f"{path} holds {len(images)} images; --name can name only one")
    pushed: dict[str, str] = {}
    for number, image in enumerate(images, 1):
        names = (_with_tag(name, image.tag or _tag_of(image.names)),) if name else image.names
        if not names:
            raise BadArchive(f"{path}: image {number} is saved without a name; give one with --name")
        refs = [_reference(ref, path) for ref in names]
        for repository in dict.fromkeys(ref.repository for ref in refs):
            tags = [ref.tag for ref in refs if ref.repository == repository]
            done = client.push(repository, list(image.blobs), image.manifest, tags)
            pushed.update({f"{repository}:{tag}": done.digest for tag in tags})
            progress(f"imported {repository}:{','.join(tags)} {done.digest} ({len(done.uploaded)} blobs "
                     f"uploaded, {len(done.skipped)} already there)")
    return pushed


def _with_tag(name: str, tag: str) -> str:
    """`--name busybox` over an archive of `…/busybox:1.35` (or whose `ref.name` is `1.35`): busybox:1.35."""
    has_tag = ":" in name.rpartition("/")[2]
    return name if has_tag or not tag else f"{name}:{tag}"


def _tag_of(names: tuple[str, ...]) -> str:
    last = names[0].rpartition("/")[2] if names else ""
    return last.partition("@")[0].rpartition(":")[2] if ":" in last else ""


def _reference(name: str, path: Path) -> references.Reference:
    try:
        return references.parse(name)
    except references.InvalidReference as exc:
        raise BadArchive(f"{path}: {exc}") from None
