"""Which runtime a cluster file's nodes run: `cri` unless the file says otherwise, and
KUBUS_NODE_RUNTIME for every node (`make demo`'s fallback where containerd cannot run)."""
from __future__ import annotations

import yaml

from config.cluster import load_cluster


def _file(tmp_path, nodes: list[dict]):
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump({"actors": [], "nodes": nodes}))
    return path


def test_nodes_run_containers_unless_the_file_says_otherwise(tmp_path, monkeypatch):
    monkeypatch.delenv("KUBUS_NODE_RUNTIME", raising=False)
    spec = load_cluster(_file(tmp_path, [{"name": "a"}, {"name": "b", "runtime": "simulated"}]))
    assert [n.runtime for n in spec.nodes] == ["cri", "simulated"]
    assert {n.runtime for n in load_cluster().nodes} == {"cri"}  # the demo's file


def test_kubus_node_runtime_is_every_nodes(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBUS_NODE_RUNTIME", "process")
    spec = load_cluster(_file(tmp_path, [{"name": "a"}, {"name": "b", "runtime": "simulated"}]))
    assert [n.runtime for n in spec.nodes] == ["process", "process"]
