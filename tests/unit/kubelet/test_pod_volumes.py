"""A pod's volumes on the node (tmpfs faked: the real one is proven in tests/integration/cri): where
each lives, what is on tmpfs and how large, the CRI mounts (read-only, subPath and subPathExpr
resolved once), the termination-message file, unsupported kinds, and the teardown."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from actors.kubelet.fieldpath import PodFacts
from actors.kubelet.volumes.manager import PodVolumes
from actors.kubelet.volumes.payload import MountError

MI = 1 << 20


class FakeTmpfs:
    def __init__(self):
        self.mounted: dict[Path, int | None] = {}

    def mount(self, path: Path, size: int | None, mode: int = 0o755) -> None:
        path.mkdir(parents=True, exist_ok=True)
        self.mounted[path] = size

    def unmount(self, path: Path) -> None:
        self.mounted.pop(path)

    def mounts_under(self, root: Path) -> list[Path]:
        return [p for p in self.mounted if str(p).startswith(str(root))]


def pod(volumes: list[dict], limits: dict | None = None, mounts: list[dict] = ()) -> dict:
    container = {"name": "c", "volumeMounts": list(mounts), "resources": {"limits": limits or {}}}
    return {"metadata": {"name": "p", "namespace": "d", "uid": "u"},
            "spec": {"volumes": volumes, "containers": [container]}}


OBJECTS = {("ConfigMap", "cfg"): {"data": {"a": "1"}}, ("Secret", "s"): {"data": {"k": "dg=="}}}


@pytest.fixture
def made(tmp_path):
    def make(spec: dict) -> tuple[PodVolumes, FakeTmpfs]:
        tmpfs = FakeTmpfs()
        volumes = PodVolumes(tmp_path / "u", 64 * MI, tmpfs)
        volumes.setup(spec, OBJECTS, PodFacts())
        return volumes, tmpfs
    return make


@pytest.mark.parametrize("emptydir, limits, size", [
    pytest.param({"medium": "Memory"}, None, 64 * MI, id="node-memory"),
    pytest.param({"medium": "Memory", "sizeLimit": "16Mi"}, None, 16 * MI, id="size-limit"),
    pytest.param({"medium": "Memory", "sizeLimit": "32Mi"}, {"memory": "8Mi"}, 8 * MI, id="pod-limit"),
])
def test_a_memory_emptydir_is_a_tmpfs_of_the_smallest_size(made, emptydir, limits, size):
    spec = pod([{"name": "m", "emptyDir": emptydir}], limits)
    volumes, tmpfs = made(spec)
    assert tmpfs.mounted == {volumes.path(spec["spec"]["volumes"][0]): size}


@pytest.mark.parametrize("inits, size", [
    pytest.param([{"name": "i", "resources": {"limits": {"memory": "24Mi"}}}], 24 * MI, id="an-init-at-its-peak"),
    pytest.param([{"name": "i", "resources": {"limits": {"memory": "4Mi"}}, "restartPolicy": "Always"}], 12 * MI,
                 id="a-sidecar-added"),
    pytest.param([{"name": "i"}], 64 * MI, id="an-init-without-limit-leaves-the-pod-unlimited"),
])
def test_the_pod_memory_limit_counts_init_containers_as_kubernetes(made, inits, size):
    spec = pod([{"name": "m", "emptyDir": {"medium": "Memory"}}], {"memory": "8Mi"})
    spec["spec"]["initContainers"] = inits
    volumes, tmpfs = made(spec)
    assert tmpfs.mounted == {volumes.path(spec["spec"]["volumes"][0]): size}


def test_where_each_lives_and_what_is_on_tmpfs(made, tmp_path):
    spec = pod([{"name": "e", "emptyDir": {}}, {"name": "c", "configMap": {"name": "cfg"}},
                {"name": "s", "secret": {"secretName": "s"}}])
    volumes, tmpfs = made(spec)
    root = tmp_path / "u" / "volumes"
    assert list(tmpfs.mounted) == [root / "kubernetes.io~secret" / "s"]
    assert (root / "kubernetes.io~empty-dir" / "e").stat().st_mode & 0o777 == 0o777
    assert (root / "kubernetes.io~configmap" / "c" / "a").read_text() == "1"
    assert (root / "kubernetes.io~secret" / "s" / "k").read_text() == "v"


def test_the_mounts_of_a_container(made, tmp_path):
    mounts = [{"name": "c", "mountPath": "/cfg"}, {"name": "c", "mountPath": "/one", "subPath": "a"},
              {"name": "e", "mountPath": "/data", "readOnly": True},
              {"name": "e", "mountPath": "/mine", "subPathExpr": "$(POD)/x"}]
    spec = pod([{"name": "e", "emptyDir": {}}, {"name": "c", "configMap": {"name": "cfg"}}], mounts=mounts)
    volumes, _ = made(spec)
    found = volumes.mounts(spec, spec["spec"]["containers"][0], 2, {"POD": "p"})
    root = tmp_path / "u" / "volumes"
    data = os.readlink(root / "kubernetes.io~configmap" / "c" / "..data")
    assert found == [
        {"container_path": "/cfg", "host_path": str(root / "kubernetes.io~configmap/c"), "readonly": True},
        {"container_path": "/one", "host_path": str((root / "kubernetes.io~configmap/c" / data / "a").resolve()),
         "readonly": True},
        {"container_path": "/data", "host_path": str(root / "kubernetes.io~empty-dir/e"), "readonly": True},
        {"container_path": "/mine", "host_path": str((root / "kubernetes.io~empty-dir/e/p/x").resolve()),
         "readonly": False},
        {"container_path": "/dev/termination-log", "host_path": str(tmp_path / "u" / "containers" / "c" / "2")}]
    assert (tmp_path / "u" / "containers" / "c" / "2").stat().st_mode & 0o777 == 0o666
    assert (root / "kubernetes.io~empty-dir/e/p/x").is_dir()


@pytest.mark.parametrize("sub", ["../escape", "/abs"])
def test_a_subpath_out_of_its_volume_is_refused(made, sub):
    spec = pod([{"name": "e", "emptyDir": {}}], mounts=[{"name": "e", "mountPath": "/x", "subPath": sub}])
    volumes, _ = made(spec)
    with pytest.raises(MountError):
        volumes.mounts(spec, spec["spec"]["containers"][0], 0, {})


def test_an_unsupported_kind_says_so(tmp_path):
    volumes = PodVolumes(tmp_path / "u", 64 * MI, FakeTmpfs())
    with pytest.raises(MountError, match='volume "n" : nfs volumes are not supported by kubus yet'):
        volumes.setup(pod([{"name": "n", "nfs": {"server": "s", "path": "/"}}]), {}, PodFacts())


def test_teardown_unmounts_and_removes_the_folder(made, tmp_path):
    volumes, tmpfs = made(pod([{"name": "m", "emptyDir": {"medium": "Memory"}},
                               {"name": "s", "secret": {"secretName": "s"}}]))
    volumes.teardown()
    assert tmpfs.mounted == {} and not (tmp_path / "u").exists()


def test_a_refresh_after_teardown_makes_nothing_again(made, tmp_path):
    spec = pod([{"name": "c", "configMap": {"name": "cfg"}}])
    volumes, _ = made(spec)
    volumes.teardown()
    volumes.refresh(spec, {("ConfigMap", "cfg"): {"data": {"a": "2"}}}, PodFacts())
    assert not (tmp_path / "u").exists()


@pytest.mark.parametrize("planted, sub", [("evil", "evil"), ("evil", "evil/made"), ("dir/evil", "dir/evil/x/y")],
                         ids=["the-link", "made-through-it", "deeper"])
def test_a_subpath_through_a_symlink_a_container_planted_is_refused(made, tmp_path, planted, sub):
    """The attack of CVE-2017-1002101: one container writes `evil -> <host dir>` into an emptyDir, the next
    mounts the emptyDir's subPath `evil`; the kubelet resolved it on the host and bind-mounted the host's
    directory (writable), or made directories there. Now the resolved path must stay in the volume."""
    host = tmp_path / "host-root"
    host.mkdir()
    spec = pod([{"name": "e", "emptyDir": {}}], mounts=[{"name": "e", "mountPath": "/x", "subPath": sub}])
    volumes, _ = made(spec)
    link = tmp_path / "u" / "volumes" / "kubernetes.io~empty-dir" / "e" / planted
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(host)  # as the container made it (its own view of the path does not matter to the host)
    with pytest.raises(MountError, match="is not within volume path"):
        volumes.mounts(spec, spec["spec"]["containers"][0], 0, {})
    assert list(host.iterdir()) == []  # nothing made on the host through the link
