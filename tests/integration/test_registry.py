"""The local registry for real: the OS's docker-registry on a free port in a tmp dir, kubus's images
pushed to it and read back as containerd reads them, archives imported, and the images run (chroot)."""
from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from runtime.images import archives, oci, recipes, registry
from testkit import registry as kit
from testkit.hosts import free_port

pytestmark = pytest.mark.skipif(not shutil.which("docker-registry"), reason="docker-registry is not installed")
CHROOT = shutil.which("chroot") or "/usr/sbin/chroot"  # the command runs with the image's PATH
AS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="chroot needs root")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    data = tmp_path_factory.mktemp("registry")
    server = registry.serve(data, f"127.0.0.1:{free_port()}")
    yield server, data
    server.stop()
    assert not registry.answering(server.url)


@pytest.fixture(scope="module")
def client(served) -> registry.Client:
    return registry.Client(served[0].url)


@pytest.fixture(scope="module")
def busybox(client):
    built = recipes.busybox()
    first = client.push("library/busybox", built.blobs(), built.manifest, ["1.35.0", "1.35"])
    return built, first


def _uploads(data: Path, method: str) -> int:
    """Blob upload requests the registry's access log shows: POST (a session or a mount), PUT (the bytes)."""
    lines = (data / "registry.log").read_text().splitlines()
    return sum(f'"{method} /v2/' in line and "/blobs/uploads/" in line for line in lines)


def test_a_pushed_image_reads_back_with_the_oci_accept_header(client, busybox):
    built, first = busybox
    assert first.uploaded == [blob.digest for blob in built.blobs()] and not first.skipped
    assert client.manifest("library/busybox", "1.35").data == built.manifest.data
    bare = client.request("GET", "/v2/library/busybox/manifests/1.35", ok=(200, 404))
    assert bare.status == 404 and b"accept header does not support OCI" in bare.body
    for blob in built.blobs():
        assert oci.sha256(client.blob("library/busybox", blob.digest)) == blob.digest


def test_a_second_push_uploads_no_blob(served, client, busybox):
    built, _ = busybox
    before = [_uploads(served[1], method) for method in ("POST", "PUT")]
    again = client.push("library/busybox", built.blobs(), built.manifest, ["1.35"])
    assert (again.uploaded, again.digest) == ([], built.manifest.digest)
    assert [_uploads(served[1], method) for method in ("POST", "PUT")] == before


def test_a_blob_of_another_repository_is_mounted_not_uploaded(served, client, busybox):
    built, _ = busybox
    puts = _uploads(served[1], "PUT")
    held_by = {blob.digest: "library/busybox" for blob in built.blobs()}
    copy = client.push("kubus/box-copy", built.blobs(), built.manifest, ["1"], held_by)
    assert (copy.mounted, copy.uploaded) == ([blob.digest for blob in built.blobs()], [])
    assert _uploads(served[1], "PUT") == puts
    assert client.manifest("kubus/box-copy", "1").data == built.manifest.data


def test_tags_list_names_every_tag(client, busybox):
    assert client.tags("library/busybox") == ["1.35", "1.35.0"]
    assert client.tags("library/nothing") == []
    assert "library/busybox" in client.repositories()


def test_a_manifest_naming_a_missing_blob_is_refused(client):
    built = oci.image([oci.layer([oci.File("never-pushed", b"x")])], oci.Config())
    with pytest.raises(registry.RegistryError, match="BLOB_UNKNOWN|MANIFEST_BLOB_UNKNOWN"):
        client.put_manifest("kubus/broken", "1", built.manifest)


# -- archives --------------------------------------------------------------------------------------

LAYER = oci.layer([oci.File("app/run", b"#!/bin/sh\necho app\n", 0o755), oci.Symlink("app/go", "run")])
IMAGE = oci.image([LAYER], oci.Config(cmd=("/app/run",)))


def _tar(path: Path, members: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def _docker_save(path: Path, repo_tags: list[str] | None) -> Path:
    config_name = IMAGE.config.digest.split(":")[1] + ".json"
    manifest = [{"Config": config_name, "RepoTags": repo_tags, "Layers": ["abc/layer.tar"]}]
    return _tar(path, {config_name: IMAGE.config.data, "abc/layer.tar": LAYER.tar,
                       "manifest.json": json.dumps(manifest).encode()})


def _oci_layout(path: Path, annotations: dict, corrupt: bool = False) -> Path:
    """An OCI layout tar as `ctr images export` writes it: with a docker manifest.json beside index.json."""
    descriptor = IMAGE.manifest.descriptor(annotations=annotations)
    blobs = {f"blobs/sha256/{b.digest.split(':')[1]}": b.data for b in (IMAGE.manifest, *IMAGE.blobs())}
    if corrupt:
        blobs[f"blobs/sha256/{LAYER.blob.digest.split(':')[1]}"] = b"not the layer"
    docker = [{"Config": f"blobs/sha256/{IMAGE.config.digest[7:]}", "RepoTags": ["docker/view:1"],
               "Layers": [f"blobs/sha256/{LAYER.blob.digest[7:]}"]}]
    return _tar(path, {"oci-layout": b'{"imageLayoutVersion":"1.0.0"}', **blobs,
                       "index.json": json.dumps({"schemaVersion": 2, "manifests": [descriptor]}).encode(),
                       "manifest.json": json.dumps(docker).encode()})


def test_a_docker_save_tar_is_pushed_under_its_repo_tags(client, tmp_path):
    pushed = archives.import_archive(client, _docker_save(tmp_path / "s.tar", ["myapp:1.0", "myapp:latest"]))
    assert sorted(pushed) == ["library/myapp:1.0", "library/myapp:latest"]
    manifest = client.manifest("library/myapp", "1.0")
    body = json.loads(manifest.data)
    assert manifest.media_type == body["mediaType"] == oci.DOCKER_MANIFEST == json.loads(
        client.manifest("library/myapp", "latest").data)["mediaType"]
    assert body["config"]["digest"] == IMAGE.config.digest
    assert [(layer["mediaType"], layer["digest"]) for layer in body["layers"]] == [(oci.DOCKER_LAYER_TAR, LAYER.diff_id)]
    assert client.blob("library/myapp", LAYER.diff_id) == LAYER.tar


def test_an_unnamed_docker_save_tar_needs_a_name(client, tmp_path):
    saved = _docker_save(tmp_path / "s.tar", None)
    with pytest.raises(archives.BadArchive, match="give one with --name"):
        archives.import_archive(client, saved)
    assert list(archives.import_archive(client, saved, "team/named:7")) == ["team/named:7"]
    assert client.tags("team/named") == ["7"]


@pytest.mark.parametrize("annotations, name, stored", [
    pytest.param({"io.containerd.image.name": "docker.io/team/tool:2", "org.opencontainers.image.ref.name": "2"},
                 None, "team/tool:2", id="containerd-export"),
    pytest.param({"org.opencontainers.image.ref.name": "registry.example.com/team/full:1"}, None, "team/full:1",
                 id="full-ref-name"),
    pytest.param({"org.opencontainers.image.ref.name": "3.0"}, "team/bare", "team/bare:3.0", id="tag-only-and-name"),
    pytest.param({}, "other:9", "library/other:9", id="unnamed-and-name"),
])
def test_an_oci_layout_is_pushed_byte_for_byte(client, tmp_path, annotations, name, stored):
    pushed = archives.import_archive(client, _oci_layout(tmp_path / "o.tar", annotations), name)
    assert pushed == {stored: IMAGE.manifest.digest}
    repository, tag = stored.split(":")
    assert client.manifest(repository, tag).data == IMAGE.manifest.data


@pytest.mark.parametrize("make, words", [
    pytest.param(lambda p: _oci_layout(p, {"org.opencontainers.image.ref.name": "x:1"}, corrupt=True),
                 "does not match its content", id="corrupt-blob"),
    pytest.param(lambda p: _tar(p, {"hello": b"hi"}), "neither a docker archive", id="not-an-image"),
    pytest.param(lambda p: (p.write_bytes(b"plain text"), p)[1], "not a readable tar", id="not-a-tar"),
    pytest.param(lambda p: _tar(p, {"manifest.json": b"[{}]"}), "not as docker or OCI write it", id="odd-manifest"),
])
def test_a_bad_archive_is_a_sentence(client, tmp_path, make, words):
    with pytest.raises(archives.BadArchive, match=words):
        archives.import_archive(client, make(tmp_path / "bad.tar"))


# -- the images run --------------------------------------------------------------------------------

def _unpack(client: registry.Client, repository: str, tag: str, root: Path) -> Path:
    body = json.loads(client.manifest(repository, tag).data)
    for layer in body["layers"]:
        subprocess.run(["tar", "-xz", "-C", str(root)], input=client.blob(repository, layer["digest"]), check=True)
    return root


@AS_ROOT
def test_busybox_knows_nobody_in_a_chroot(client, busybox, tmp_path):
    root = _unpack(client, "library/busybox", "1.35", tmp_path)
    out = subprocess.run([CHROOT, str(root), "/bin/sh", "-c", "id nobody"], capture_output=True, text=True,
                         env={"PATH": "/bin"}, timeout=30)
    assert (out.returncode, out.stdout.strip()) == (0, "uid=65534(nobody) gid=65534(nogroup) groups=65534(nogroup)")


@AS_ROOT
def test_python_runs_in_a_chroot_of_its_layers(client, tmp_path):
    built = recipes.python()
    client.push("kubus/python", built.blobs(), built.manifest, ["test"])
    root = _unpack(client, "kubus/python", "test", tmp_path)
    assert not list(root.glob("usr/lib/python3.11/**/__pycache__")) and not (root / "usr/lib/python3.11/test").exists()
    script = "import json, http.server, socket; print(json.dumps(socket.gethostname() != ''))"
    out = subprocess.run([CHROOT, str(root), "python3", "-c", script], capture_output=True, text=True,
                         env={"PATH": "/usr/bin:/bin"}, timeout=60)
    assert (out.returncode, out.stdout, out.stderr) == (0, "true\n", "")
    sh = subprocess.run([CHROOT, str(root), "sh", "-c", "echo $((6*7))"], capture_output=True, text=True,
                        env={"PATH": "/usr/bin:/bin"}, timeout=30)
    assert sh.stdout == "42\n"


# -- the test kit ----------------------------------------------------------------------------------

def test_the_kit_starts_a_registry_with_the_images_and_stops_only_its_own(tmp_path):
    url = kit.session_registry(f"127.0.0.1:{free_port()}", tmp_path)
    try:
        assert url in kit.started() and registry.answering(url)
        assert set(kit.images(url)) == {ref for recipe in recipes.recipes() for ref in recipe.references}
        assert kit.session_registry(url.removeprefix("http://"), tmp_path) == url and kit.started().count(url) == 1
        assert registry.Client(url).tags("kubus/pause") == list(recipes.recipes()[1].tags)
    finally:
        kit.stop_started()
    assert not registry.answering(url) and kit.started() == []
