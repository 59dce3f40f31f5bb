"""`kubus cordon`, `drain` and `uncordon` against a cluster of hollow nodes: a drained node keeps no
pods, its Deployment's pods come back elsewhere, and a bare pod needs --force."""
from __future__ import annotations

from collections import Counter

from testkit.waiting import wait_until
from tests.integration.test_deployment import deployment, kubus, status


def _on(client, node: str) -> list[dict]:
    return [p for p in client.list("Pod", "default").items if p["spec"].get("nodeName") == node]


def test_drain_moves_pods_off_a_cordoned_node(apps, procs):
    apps.create(deployment("web", 8))
    wait_until(lambda: status(apps, "web").get("availableReplicas") == 8, 60, what="8 available")
    node = Counter(p["spec"]["nodeName"] for p in apps.list("Pod", "default").items).most_common(1)[0][0]
    apps.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bare"},
                 "spec": {"nodeName": node, "containers": [{"name": "c", "image": "busybox"}]}})

    refused = kubus(procs, "drain", node)
    assert refused.returncode == 1
    assert "cannot delete Pods that declare no controller (use --force to override): default/bare" in refused.stderr
    assert apps.get("Node", node)["spec"]["unschedulable"] is True  # cordoned before it looked

    drained = kubus(procs, "drain", node, "--force")
    assert drained.returncode == 0, drained.stderr
    lines = drained.stdout.splitlines()
    assert lines[0] == f"node/{node} already cordoned" and lines[-1] == f"node/{node} drained"
    assert "evicting pod default/bare" in lines and "pod/bare evicted" in lines
    wait_until(lambda: status(apps, "web").get("availableReplicas") == 8, 60, what="8 available again")
    assert not _on(apps, node)

    assert kubus(procs, "uncordon", node).stdout.strip() == f"node/{node} uncordoned"
    assert not apps.get("Node", node)["spec"].get("unschedulable")
    assert kubus(procs, "cordon", node).stdout.strip() == f"node/{node} cordoned"
    described = kubus(procs, "describe", "node", node).stdout
    assert "Unschedulable: true" in described and "Non-terminated Pods:  (0 in total)" in described
