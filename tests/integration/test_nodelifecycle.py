"""A node whose kubelet dies: Ready=Unknown and the unreachable taints, its pods evicted after
their toleration, and their ReplicaSet brings them back on the nodes that still live."""
from __future__ import annotations

from tests.conftest import control_plane
from testkit.waiting import wait_until
from tests.integration.test_replicaset import replicaset


def test_pods_of_a_lost_node_reappear_elsewhere(procs, settings):
    client = control_plane(procs, settings)
    procs.start("actors.scheduler")
    fast = ("--node-lease-renew-interval", "1")  # the grace below must outlast a renewal interval
    doomed = procs.start("actors.kubelet", "--hollow", "2", "--prefix", "doomed", *fast, label="kubelet-doomed")
    procs.start("actors.kubelet", "--hollow", "2", "--prefix", "alive", *fast, label="kubelet-alive")
    procs.start("actors.controllers", "replicaset", label="rs")
    procs.start("actors.controllers", "nodelifecycle", "--node-monitor-grace-period", "4",
                "--node-monitor-period", "1", "--node-eviction-rate", "10", label="nodelifecycle")
    wait_until(lambda: len(client.list("Node").items) == 4, 30, what="four nodes")
    rs = replicaset("web", 8)
    rs["spec"]["template"]["spec"]["tolerations"] = [
        {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 1}]
    client.create(rs)

    def placed() -> dict[str, int]:
        out: dict[str, int] = {}
        for p in client.list("Pod", "default").items:
            if not p["metadata"].get("deletionTimestamp") and p["spec"].get("nodeName"):
                out[p["spec"]["nodeName"]] = out.get(p["spec"]["nodeName"], 0) + 1
        return out

    wait_until(lambda: sum(placed().values()) == 8 and any(n.startswith("doomed") for n in placed()), 60,
               what="pods on every node")
    procs.kill9(doomed)
    def unknown() -> dict | None:
        node = client.get("Node", "doomed-0")
        ready = {c["type"]: c["status"] for c in node["status"]["conditions"]}["Ready"]
        return node if ready == "Unknown" else None

    lost = wait_until(unknown, 30, what="Ready=Unknown")
    assert {(t["key"], t["effect"]) for t in lost["spec"].get("taints") or []} <= {
        ("node.kubernetes.io/unreachable", "NoSchedule"), ("node.kubernetes.io/unreachable", "NoExecute")}
    wait_until(lambda: ("node.kubernetes.io/unreachable", "NoExecute") in {
        (t["key"], t["effect"]) for t in client.get("Node", "doomed-0")["spec"].get("taints") or []}, 30,
        what="the NoExecute taint")
    wait_until(lambda: sum(v for k, v in placed().items() if k.startswith("alive")) == 8, 60,
               what="all 8 pods on the live nodes")
    evicted = [p for p in client.list("Pod", "default").items if p["metadata"].get("deletionTimestamp")]
    assert evicted and all(any(c["type"] == "DisruptionTarget" and c["reason"] == "DeletionByTaintManager"
                               for c in p["status"]["conditions"]) for p in evicted)
    client.close()
