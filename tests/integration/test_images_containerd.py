"""kubus's images as containerd sees them: a private containerd (its own root, state and socket; the CRI
plugin off) pulls them from the local registry over plain HTTP with the digests kubus computed, and
runc runs busybox and python from them. Everything it made goes with the test."""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from runtime.images import archives, oci, recipes, registry
from testkit.hosts import free_port
from testkit.waiting import wait_until

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="containerd and runc need root"),
    pytest.mark.skipif(not all(map(shutil.which, ("containerd", "ctr", "runc", "docker-registry"))),
                       reason="containerd, runc or docker-registry is not installed (make containers)"),
]
NAMESPACE = f"kubus-images-{os.getpid()}"
CONFIG = """version = 2
root = "{d}/root"
state = "{d}/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "{d}/containerd.sock"
[ttrpc]
  address = "{d}/containerd.sock.ttrpc"
"""


@pytest.fixture(scope="module")
def pushed(tmp_path_factory):
    server = registry.serve(tmp_path_factory.mktemp("registry"), f"127.0.0.1:{free_port()}")
    digests = recipes.build_and_push(registry.Client(server.url))
    yield server.url.removeprefix("http://"), digests
    server.stop()


@pytest.fixture(scope="module")
def ctr(tmp_path_factory):
    """`ctr` against a containerd of this module's own; it and its directory go at the end."""
    home = Path(tmp_path_factory.mktemp("cd"))
    (home / "config.toml").write_text(CONFIG.format(d=home))
    with open(home / "containerd.log", "wb") as log:
        proc = subprocess.Popen(["containerd", "--config", str(home / "config.toml")], stdout=log, stderr=log)

    # `ctr run` keeps runc's state and its fifos in the module's directory, not /run/containerd
    private = ["--runc-root", str(home / "runc"), "--fifo-dir", str(home / "fifo")]

    def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        args = (*args[:1], *private, *args[1:]) if args[0] == "run" else args
        return subprocess.run(["ctr", "--address", str(home / "containerd.sock"), "--namespace", NAMESPACE, *args],
                              capture_output=True, text=True, timeout=timeout)

    try:
        wait_until(lambda: run("version", timeout=5).returncode == 0, timeout=30, what="containerd to answer")
        yield run
    finally:
        for line in run("images", "ls", "-q").stdout.split():
            run("images", "rm", "--sync", line)
        run("namespaces", "rm", NAMESPACE)
        proc.terminate()
        proc.wait(30)
        shutil.rmtree(home, ignore_errors=True)
        for cgroup in Path("/sys/fs/cgroup").glob(f"*/{NAMESPACE}"):  # runc's /<namespace>/<id>, emptied by --rm
            cgroup.rmdir()


def test_containerd_pulls_each_image_with_the_digest_kubus_computed(pushed, ctr):
    address, digests = pushed
    for ref, digest in digests.items():
        pull = ctr("images", "pull", "--plain-http", f"{address}/{ref}")
        assert pull.returncode == 0, pull.stderr
        listed = ctr("images", "ls").stdout
        assert f"{address}/{ref}" in listed and digest in listed


@pytest.mark.parametrize("repository, command, expected", [
    pytest.param("library/busybox", ["sh", "-c", "id nobody && ls -ld /tmp | cut -c1-10"],
                 "uid=65534(nobody) gid=65534(nogroup) groups=65534(nogroup)\ndrwxrwxrwt\n", id="busybox"),
    pytest.param("kubus/python", ["python3", "-c", "import json, http.server, socket; print(json.dumps([1]))"],
                 "[1]\n", id="python"),
])
def test_runc_runs_the_images(pushed, ctr, repository, command, expected):
    address, digests = pushed
    ref = next(ref for ref in digests if ref.startswith(f"{repository}:"))
    assert ctr("images", "pull", "--plain-http", f"{address}/{ref}").returncode == 0
    ran = ctr("run", "--rm", f"{address}/{ref}", f"t{time.monotonic_ns()}", *command)
    assert (ran.returncode, ran.stdout) == (0, expected), ran.stderr


def test_an_exported_image_imports_with_its_digest(pushed, ctr, tmp_path):
    address, digests = pushed
    ref = "kubus/pause:" + next(r for r in digests if r.startswith("kubus/pause:")).split(":")[1]
    assert ctr("images", "pull", "--plain-http", f"{address}/{ref}").returncode == 0
    exported = tmp_path / "pause.tar"
    assert ctr("images", "export", str(exported), f"{address}/{ref}").returncode == 0
    imported = archives.import_archive(registry.Client(f"http://{address}"), exported, "exported/pause")
    assert imported == {f"exported/pause:{ref.split(':')[1]}": digests[ref]}
    assert recipes.pause().manifest.digest == digests[ref] and oci.MANIFEST in ctr("images", "ls").stdout
