"""`kubus describe node`: what the node runs and what that asks of it, as kubectl shows it."""
from __future__ import annotations

from cli.describe import node_lines


def _pod(name: str, cpu: str, memory: str, phase: str = "Running") -> dict:
    return {"metadata": {"name": name, "namespace": "shop", "creationTimestamp": None},
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": memory}}}]},
            "status": {"phase": phase}}


def test_node_lines_show_taints_pods_and_allocated_requests():
    node = {"spec": {"unschedulable": True, "taints": [{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]},
            "status": {"allocatable": {"cpu": "2", "memory": "4Gi", "pods": "110"}}}
    pods = [_pod("a", "500m", "512Mi"), _pod("b", "1", "1Gi"), _pod("done", "1", "1Gi", phase="Succeeded")]
    text = "\n".join(node_lines(node, pods))
    assert "Taints:       dedicated=db:NoSchedule" in text
    assert "Unschedulable: true" in text
    assert "Non-terminated Pods:  (2 in total)" in text
    rows = [line.split() for line in text.splitlines() if line.startswith("  shop")]
    assert [r[1:4] for r in rows] == [["a", "500m", "512Mi"], ["b", "1", "1024Mi"]]
    assert "  cpu        1500m (75%)" in text and "  memory     1536Mi (37%)" in text
