"""OCI images as kubus builds them: reproducible bytes, the layer's tar headers, the config and the
manifest; image references as the local registry stores them; honest version tags."""
from __future__ import annotations

import gzip
import io
import json
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from runtime.images import kubectl, oci, recipes, references

ENTRIES = [oci.File("bin/tool", b"#!/bin/sh\necho hi\n", 0o755), oci.Symlink("bin/alias", "tool"),
           oci.File("etc/passwd", b"root:x:0:0::/:/bin/sh\n"), oci.Dir("tmp", 0o1777),
           oci.Symlink("usr/lib/link", "../../etc/passwd")]


def _members(layer: oci.Layer) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(fileobj=io.BytesIO(layer.tar)) as tar:
        return {member.name: member for member in tar.getmembers()}


@pytest.mark.parametrize("entries", [
    pytest.param(list(reversed(ENTRIES)), id="other-order"),
    pytest.param([*ENTRIES, oci.Dir("bin")], id="explicit-parent"),
    pytest.param(ENTRIES[:1] + [oci.File("bin/tool", b"old", 0o755)] + ENTRIES, id="later-entry-wins"),
])
def test_same_content_gives_the_same_digests(entries):
    first, again = oci.layer(ENTRIES), oci.layer(entries)
    assert (again.diff_id, again.blob.digest) == (first.diff_id, first.blob.digest)
    config = oci.Config(cmd=("sh",))
    assert oci.image([again], config).manifest.digest == oci.image([first], config).manifest.digest


@pytest.mark.parametrize("change", [
    pytest.param(oci.File("bin/tool", b"other", 0o755), id="content"),
    pytest.param(oci.File("bin/tool", b"#!/bin/sh\necho hi\n", 0o700), id="mode"),
    pytest.param(oci.Symlink("bin/alias", "other"), id="link-target"),
])
def test_a_change_changes_the_digests(change):
    assert oci.layer([*ENTRIES, change]).diff_id != oci.layer(ENTRIES).diff_id


def test_digests_are_the_sha256_of_the_tar_and_of_the_gzip():
    layer = oci.layer(ENTRIES)
    assert layer.diff_id == oci.sha256(layer.tar)
    assert layer.blob.digest == oci.sha256(layer.blob.data)
    assert gzip.decompress(layer.blob.data) == layer.tar
    assert layer.blob.data[4:8] == b"\0\0\0\0"  # the gzip header's mtime


def test_an_uncompressed_layer_is_its_tar_and_its_digest_the_diff_id():
    layer = oci.layer(ENTRIES, compressed=False)
    assert (layer.blob.media_type, layer.blob.data) == (oci.LAYER_TAR, oci.layer(ENTRIES).tar)
    assert layer.blob.digest == layer.diff_id == oci.layer(ENTRIES).diff_id
    manifest = json.loads(oci.image([layer], oci.Config()).manifest.data)
    assert manifest["layers"] == [{"mediaType": oci.LAYER_TAR, "digest": layer.diff_id, "size": len(layer.tar)}]


def test_layer_headers_are_owned_by_root_at_time_zero_with_their_modes():
    members = _members(oci.layer(ENTRIES))
    assert sorted(members) == ["bin", "bin/alias", "bin/tool", "etc", "etc/passwd", "tmp", "usr", "usr/lib",
                               "usr/lib/link"]
    assert {(m.uid, m.gid, m.mtime) for m in members.values()} == {(0, 0, 0)}
    assert (members["bin/tool"].mode, members["etc/passwd"].mode, members["tmp"].mode) == (0o755, 0o644, 0o1777)
    assert members["bin"].isdir() and members["bin"].mode == 0o755
    assert members["bin/alias"].issym() and members["bin/alias"].linkname == "tool"
    assert members["usr/lib/link"].linkname == "../../etc/passwd"


@pytest.mark.parametrize("entry, words", [
    pytest.param(oci.Symlink("bin/sh", "/bin/busybox"), "relative", id="absolute-link"),
    pytest.param(oci.File("../escape", b""), "not inside", id="dot-dot"),
    pytest.param(oci.File("/", b""), "not inside", id="the-root"),
])
def test_entries_that_would_not_hold_in_any_root_are_refused(entry, words):
    with pytest.raises(ValueError, match=words):
        oci.layer([entry])


def test_config_holds_the_platform_the_diff_ids_and_the_runtime_fields():
    layers = [oci.layer(ENTRIES[:2]), oci.layer(ENTRIES[2:])]
    config = oci.Config(env=("PATH=/bin",), entrypoint=("/bin/tool",), cmd=("-v",), user="65534",
                        working_dir="/tmp", labels=(("a", "b"),), stop_signal="SIGQUIT", exposed_ports=("80/tcp",))
    built = oci.image(layers, config)
    body = json.loads(built.config.data)
    assert (body["architecture"], body["os"]) == ("amd64", "linux")
    assert body["rootfs"] == {"type": "layers", "diff_ids": [layer.diff_id for layer in layers]}
    assert body["config"] == {"Env": ["PATH=/bin"], "Entrypoint": ["/bin/tool"], "Cmd": ["-v"], "User": "65534",
                              "WorkingDir": "/tmp", "Labels": {"a": "b"}, "StopSignal": "SIGQUIT",
                              "ExposedPorts": {"80/tcp": {}}}
    assert json.loads(oci.image(layers, oci.Config(cmd=("sh",))).config.data)["config"] == {"Cmd": ["sh"]}


def test_manifest_names_the_config_and_the_gzipped_layers():
    layers = [oci.layer(ENTRIES)]
    built = oci.image(layers, oci.Config())
    body = json.loads(built.manifest.data)
    assert (body["schemaVersion"], body["mediaType"], built.manifest.media_type) == (2, oci.MANIFEST, oci.MANIFEST)
    assert body["config"] == {"mediaType": oci.CONFIG, "digest": built.config.digest, "size": len(built.config.data)}
    assert body["layers"] == [{"mediaType": oci.LAYER_GZIP, "digest": layers[0].blob.digest,
                               "size": len(layers[0].blob.data)}]
    assert [blob.digest for blob in built.blobs()] == [built.config.digest, layers[0].blob.digest]


@pytest.mark.parametrize("ref, repository, tag", [
    ("busybox", "library/busybox", "latest"),
    ("busybox:1.35", "library/busybox", "1.35"),
    ("docker.io/library/busybox:1.35.0", "library/busybox", "1.35.0"),
    ("docker.io/kubus/pause:catatonit-0.1.7", "kubus/pause", "catatonit-0.1.7"),
    ("127.0.0.1:5000/kubus/python:3.11.2-bookworm", "kubus/python", "3.11.2-bookworm"),
    ("localhost/app", "app", "latest"),
    ("registry.example.com/team/app:v1", "team/app", "v1"),
])
def test_references_are_normalized_as_docker_io_names(ref, repository, tag):
    assert references.parse(ref) == references.Reference(repository, tag)


@pytest.mark.parametrize("ref", ["Busybox", "busybox:", "busy box", "busybox@sha256:" + "0" * 64, ""])
def test_bad_references_are_invalid_image_names(ref):
    with pytest.raises(references.InvalidReference, match="couldn't parse image name"):
        references.parse(ref)


@pytest.mark.parametrize("debian, version", [
    ("1:1.35.0-4+deb12u1+b1", "1.35.0"), ("0.1.7-1+b2", "0.1.7"), ("3.11.2-6+deb12u6", "3.11.2"), ("2.8.2", "2.8.2"),
])
def test_tags_are_the_upstream_version_of_the_package(debian, version):
    assert recipes.upstream(debian) == version


@pytest.mark.skipif(not recipes.BUSYBOX.exists(), reason="busybox-static is not installed (make containers)")
def test_busybox_layer_links_every_applet_relatively_and_knows_nobody():
    members = _members(oci.layer(recipes.busybox_entries()))
    links = {name: m.linkname for name, m in members.items() if m.issym()}
    assert links["bin/sh"] == "busybox" and set(links.values()) == {"busybox"} and len(links) > 200
    assert members["bin/busybox"].mode == 0o755 and members["tmp"].mode == 0o1777
    with tarfile.open(fileobj=io.BytesIO(oci.layer(recipes.busybox_entries()).tar)) as tar:
        assert b"nobody:x:65534:65534:" in tar.extractfile("etc/passwd").read()
        assert b"nogroup:x:65534:" in tar.extractfile("etc/group").read()


@pytest.mark.skipif(not Path("/usr/bin/dpkg-query").exists(), reason="not a Debian host")
def test_recipes_are_tagged_by_the_installed_packages():
    tags = {recipe.repository: recipe.tags for recipe in recipes.recipes()}
    box = recipes.package_version("busybox-static")
    assert tags["library/busybox"] == (box, box.rsplit(".", 1)[0])
    assert tags["kubus/pause"] == (f"catatonit-{recipes.package_version('catatonit')}",)
    assert tags["kubus/python"][0].startswith(recipes.package_version("python3.11") + "-")
    assert tags["kubus/python-kubernetes"] == (
        f"{recipes.package_version('python3-kubernetes')}-{recipes.codename()}",)
    with pytest.raises(recipes.MissingPackage, match="not installed"):
        recipes.package_version("no-such-package-kubus")


@pytest.mark.skipif(not shutil.which("kubectl"), reason="no kubectl on PATH")
def test_the_kubectl_image_is_the_hosts_kubectl_tagged_by_its_version():
    binary = kubectl.kubectl_binary()
    version = json.loads(subprocess.run([str(binary), "version", "--client", "-o", "json"], capture_output=True,
                                        text=True).stdout)["clientVersion"]["gitVersion"]
    assert not version.endswith("-dispatcher") and version.startswith("v1.")
    recipe = next(recipe for recipe in recipes.recipes() if recipe.repository == "kubus/kubectl")
    assert recipe.tags == (version.removeprefix("v"),)
    built = recipe.build()
    assert json.loads(built.config.data)["config"]["Cmd"] == ["kubectl"]
    kept = built.layers[-1]
    assert kept.blob.media_type == oci.LAYER_TAR
    with tarfile.open(fileobj=io.BytesIO(kept.tar)) as tar:
        member = tar.getmember("usr/local/bin/kubectl")
        assert member.mode == 0o755 and tar.extractfile(member).read() == binary.read_bytes()


@pytest.mark.skipif(not Path("/usr/lib/python3/dist-packages/kubernetes").is_dir(), reason="no python3-kubernetes")
def test_the_clients_layer_holds_its_dependencies_and_their_libraries():
    closure = recipes.python_closure(recipes.CLIENT)
    assert {"python3-kubernetes", "python3-yaml", "python3-urllib3", "python3-cffi-backend"} <= set(closure)
    assert "python3-minimal" not in closure  # the interpreter is the python layer's
    names = {entry.path.lstrip("/") for entry in recipes.dist_packages_entries(closure)}
    assert "usr/lib/python3/dist-packages/kubernetes/config/incluster_config.py" in names
    assert any("libyaml" in name for name in names)  # what _yaml's extension links to
    assert not any("__pycache__" in name for name in names)
