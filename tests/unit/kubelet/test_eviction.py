"""The eviction manager's emptyDir decision: which volumes have a limit, the message Kubernetes
writes, and usage measured as `du` does."""
from __future__ import annotations

import os

import pytest

from actors.kubelet import eviction


def pod(*volumes: dict) -> dict:
    return {"metadata": {"name": "p"}, "spec": {"containers": [], "volumes": list(volumes)}}


def empty_dir(name: str, **source) -> dict:
    return {"name": name, "emptyDir": source}


@pytest.mark.parametrize("volumes,used,expected", [
    pytest.param([empty_dir("x", sizeLimit="1Mi")], {"x": 2 << 20},
                 'Usage of EmptyDir volume "x" exceeds the limit "1Mi". ', id="over"),
    pytest.param([empty_dir("x", sizeLimit="1Mi")], {"x": 1 << 20}, None, id="at-the-limit"),
    pytest.param([empty_dir("x")], {"x": 1 << 30}, None, id="no-limit"),
    pytest.param([empty_dir("x", sizeLimit="0")], {"x": 1 << 30}, None, id="zero-limit"),
    pytest.param([empty_dir("x", sizeLimit="1048576")], {"x": 2 << 20},
                 'Usage of EmptyDir volume "x" exceeds the limit "1048576". ', id="decimal-limit-as-given"),
    pytest.param([empty_dir("a", sizeLimit="1Mi"), empty_dir("b", sizeLimit="1Ki")], {"b": 4096},
                 'Usage of EmptyDir volume "b" exceeds the limit "1Ki". ', id="the-first-over-one"),
    pytest.param([empty_dir("x", sizeLimit="1Mi")], {}, None, id="not-measured"),
    pytest.param([{"name": "c", "configMap": {"name": "c"}}], {"c": 1 << 30}, None, id="not-an-emptydir"),
])
def test_exceeded(volumes, used, expected):
    assert eviction.exceeded(pod(*volumes), used.get) == expected


def test_limits_in_bytes_and_as_printed():
    assert eviction.limits(pod(empty_dir("m", medium="Memory", sizeLimit="1.5Gi"), empty_dir("d"))) == [
        eviction.Limit("m", 1536 << 20, "1536Mi")]


def test_disk_usage_counts_blocks_each_inode_once_and_no_symlink_target(tmp_path):
    (tmp_path / "sub").mkdir()
    with open(tmp_path / "sub" / "big", "wb") as f:
        f.write(os.urandom(300_000))
    os.link(tmp_path / "sub" / "big", tmp_path / "hardlink")
    (tmp_path / "sparse").open("wb").truncate(50 << 20)  # no blocks: not counted
    os.symlink("/usr", tmp_path / "elsewhere")
    used = eviction.disk_usage(tmp_path)
    assert 300_000 <= used < 400_000, used
    assert eviction.disk_usage(tmp_path / "missing") is None


def test_the_event_recorded_is_a_warning_about_the_pod_from_the_kubelet():
    pod = {"metadata": {"name": "p", "namespace": "shop", "uid": "u1"}, "spec": {}}
    request = eviction.recorded(pod, "Usage of EmptyDir volume \"x\" exceeds the limit \"1Mi\". ")
    ev = request["object"]
    assert (request["verb"], request["kind"], request["namespace"]) == ("create", "Event", "shop")
    assert (ev["type"], ev["reason"], ev["source"]) == ("Warning", "Evicted", {"component": "kubelet"})
    assert ev["involvedObject"] == {"apiVersion": "v1", "kind": "Pod", "name": "p", "namespace": "shop", "uid": "u1",
                                    "resourceVersion": None}
