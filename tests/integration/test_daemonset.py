"""DaemonSets on simulated nodes with the real scheduler, controller, GC and kubelets: one pod per
node the DaemonSet tolerates, bound by the scheduler through the node's affinity term; a new node
gets its pod; an image change rolls node by node within maxUnavailable 1 and is recorded as a new
ControllerRevision; a node tainted NoExecute loses its pod; deleting the DaemonSet collects its pods
and revisions, and deleting its namespace removes all three."""
from __future__ import annotations

import pytest

from actors.controllers.daemonnodes import HASH_LABEL
from tests.integration.conftest import cluster_with, three_nodes
from testkit.waiting import wait_until

TAINT = "dedicated=infra:NoSchedule"
# what `daemons` runs besides store and apiserver (a shared_plane test: on the module's plane)
PLANE_ACTORS = [("actors.scheduler",), ("actors.kubelet", "--hollow", "2", "--capacity", "cpu=8,memory=16Gi,pods=110"),
                ("actors.kubelet", "--node", "tainted", "--runtime", "simulated", "--taints", TAINT),
                ("actors.controllers", "daemonset"), ("actors.controllers", "gc")]


@pytest.fixture
def daemons(procs, settings, request):
    """Three simulated nodes (hollow-0, hollow-1 and `tainted`), the scheduler, the DaemonSet controller, the GC.
    Marked `shared_plane`: those on the module's plane, the client in the test's own namespace."""
    yield from cluster_with(procs, settings, request, start_daemons, "daemon_plane")


def start_daemons(procs, client) -> None:
    for args in PLANE_ACTORS:
        procs.start(*args)
    three_nodes(client)


@pytest.fixture(scope="module")
def daemon_plane(plane):
    """The module's plane once its three nodes are registered; the plane's client."""
    three_nodes(plane.client)
    return plane.client



def daemonset(image: str = "agent:1") -> dict:
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
            "spec": {"selector": {"matchLabels": {"app": "agent"}},
                     "template": {"metadata": {"labels": {"app": "agent"}},
                                  "spec": {"terminationGracePeriodSeconds": 0,
                                           "containers": [{"name": "c", "image": image}]}}}}


def placed(client) -> dict[str, dict]:
    """The live daemon pods by the node they are bound to."""
    pods = client.list("Pod", client.namespace, label_selector="app=agent").items
    return {p["spec"]["nodeName"]: p for p in pods
            if p["spec"].get("nodeName") and not p["metadata"].get("deletionTimestamp")}


def settled(client, nodes: set[str], hash_: str | None = None):
    def check():
        ds = client.get("DaemonSet", "agent")
        status = ds.get("status") or {}
        pods = placed(client)
        ok = set(pods) == nodes and status.get("numberAvailable") == len(nodes) and \
            status.get("updatedNumberScheduled") == len(nodes) and \
            status.get("observedGeneration") == ds["metadata"]["generation"] and \
            (hash_ is None or all(p["metadata"]["labels"][HASH_LABEL] == hash_ for p in pods.values()))
        return (ds, pods) if ok else None
    return wait_until(check, 60, what=f"a settled DaemonSet on {sorted(nodes)}")


def revisions(client) -> list[dict]:
    return sorted(client.list("ControllerRevision", client.namespace).items, key=lambda r: r["revision"])


def test_one_pod_per_tolerating_node_a_new_node_and_a_rolling_update(daemons, procs):  # adds a node: own cluster
    daemons.create(daemonset())
    ds, pods = settled(daemons, {"hollow-0", "hollow-1"})
    assert ds["status"]["desiredNumberScheduled"] == 2 and ds["status"]["numberMisscheduled"] == 0
    term = pods["hollow-0"]["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert term == {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In",
                                                            "values": ["hollow-0"]}]}]}
    [first] = revisions(daemons)
    assert first["revision"] == 1 and first["metadata"]["name"] == f"agent-{first['metadata']['labels'][HASH_LABEL]}"

    procs.start("actors.kubelet", "--node", "extra", "--runtime", "simulated", label="extra")
    settled(daemons, {"hollow-0", "hollow-1", "extra"})

    daemons.patch("DaemonSet", "agent", {"spec": {"template": {"spec": {"containers": [
        {"name": "c", "image": "agent:2"}]}}}}, "default")
    seen_down = []

    def rolled():
        pods = placed(daemons)
        status = daemons.get("DaemonSet", "agent", "default").get("status") or {}
        seen_down.append(3 - len(pods))
        return len(revisions(daemons)) == 2 and status.get("updatedNumberScheduled") == 3 and \
            status.get("numberAvailable") == 3 and all(p["spec"]["containers"][0]["image"] == "agent:2"
                                                         for p in pods.values())
    wait_until(rolled, 90, what="the image rolled to every node")
    assert max(seen_down) <= 1  # maxUnavailable 1: never two nodes without a pod at once
    second = revisions(daemons)[-1]
    settled(daemons, {"hollow-0", "hollow-1", "extra"}, second["metadata"]["labels"][HASH_LABEL])
    assert second["revision"] == 2
    ds = daemons.get("DaemonSet", "agent", "default")
    assert ds["metadata"]["annotations"]["deprecated.daemonset.template.generation"] == "2"
    assert "collisionCount" not in ds["status"]  # a revision made twice (not seen yet) is no collision
    assert {p["metadata"]["labels"]["pod-template-generation"] for p in placed(daemons).values()} == {"2"}
    reasons = {e["reason"] for e in daemons.list("Event", "default").items if e["involvedObject"]["name"] == "agent"}
    assert {"SuccessfulCreate", "SuccessfulDelete"} <= reasons

    daemons.patch("Node", "extra", {"spec": {"taints": [{"key": "dedicated", "value": "db", "effect": "NoExecute"}]}})
    settled(daemons, {"hollow-0", "hollow-1"})  # a pod on a node no longer eligible is deleted

    daemons.delete("DaemonSet", "agent", "default")
    wait_until(lambda: not daemons.list("Pod", "default").items and not revisions(daemons), 60,
               what="the DaemonSet's pods and revisions collected")


@pytest.mark.shared_plane  # the module's plane (its namespace controller); namespace `edge` named after the test's
def test_deleting_its_namespace_removes_the_daemonset_its_pods_and_revisions(daemons):
    edge = f"{daemons.namespace}-edge"
    daemons.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": edge}})
    daemons.create({**daemonset(), "metadata": {"name": "agent", "namespace": edge}})
    wait_until(lambda: len(daemons.list("Pod", edge).items) == 2 and daemons.list("ControllerRevision", edge).items,
               60, what=f"two daemon pods and a revision in {edge}")
    daemons.delete("Namespace", edge)
    wait_until(lambda: not [n for n in daemons.list("Namespace").items if n["metadata"]["name"] == edge], 90,
               what="the namespace to go")
    for kind in ("DaemonSet", "ControllerRevision", "Pod"):
        assert daemons.list(kind, edge).items == []


@pytest.mark.shared_plane  # the module's plane (nodes, controllers), a namespace of its own
def test_with_max_surge_the_new_pod_starts_beside_the_old_one(daemons):
    surge = daemonset()
    surge["spec"]["updateStrategy"] = {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}}
    daemons.create(surge)
    settled(daemons, {"hollow-0", "hollow-1"})
    slow = {"metadata": {"annotations": {"kubus.io/simulated-startup-seconds": "1"}},  # new pods start in 1 s
            "spec": {"containers": [{"name": "c", "image": "agent:2"}]}}
    daemons.patch("DaemonSet", "agent", {"spec": {"template": slow}})
    most_on_a_node, nodes_without_ready = [], []

    def rolled():
        pods = [p for p in daemons.list("Pod", daemons.namespace, label_selector="app=agent").items
                if p["spec"].get("nodeName") and not p["metadata"].get("deletionTimestamp")]
        per_node = {n: [p for p in pods if p["spec"]["nodeName"] == n] for n in ("hollow-0", "hollow-1")}
        most_on_a_node.append(max(len(v) for v in per_node.values()))
        nodes_without_ready.append(sum(1 for v in per_node.values() if not any(
            c["type"] == "Ready" and c["status"] == "True" for p in v for c in p["status"].get("conditions") or [])))
        return all(len(v) == 1 and v[0]["spec"]["containers"][0]["image"] == "agent:2" for v in per_node.values())
    wait_until(rolled, 60, what="the image surged onto both nodes")
    assert max(most_on_a_node) == 2  # old and new side by side on a node
    assert max(nodes_without_ready) == 0  # maxUnavailable 0: every node kept a Ready pod throughout
