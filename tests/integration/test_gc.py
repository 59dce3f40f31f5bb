"""Deleting a Deployment: background removes its ReplicaSets and pods, orphan keeps them,
foreground holds the Deployment until they are gone."""
from __future__ import annotations

import pytest

from api.status import StatusError
from runtime.client import Watch
from testkit.waiting import wait_until
from tests.integration.test_deployment import deployment, kubus, status
from tests.integration.test_watch import drain


pytestmark = pytest.mark.shared_plane  # one plane for the module (hollow nodes, controllers), a namespace per test
PLANE_ACTORS = [("actors.controllers", "gc")]


@pytest.fixture
def collected(apps):
    """`apps` on the module's plane with the GC (PLANE_ACTORS), and Deployment `web` of 3 available replicas."""
    apps.create(deployment("web", 3))
    wait_until(lambda: status(apps, "web").get("availableReplicas") == 3, 60, what="3 available")
    return apps


def _live(client, kind: str) -> list[dict]:
    return client.list(kind, client.namespace).items


def _gone(client, kind: str, name: str, namespace: str | None = None) -> bool:
    try:
        client.get(kind, name, namespace)
        return False
    except StatusError as exc:
        return exc.reason == "NotFound"


def test_background_deletes_replicasets_and_pods(collected, procs):
    assert kubus(procs, "delete", "deployment", "web", "-n", collected.namespace).returncode == 0
    wait_until(lambda: not _live(collected, "ReplicaSet"), 60, what="the ReplicaSet collected")
    wait_until(lambda: not _live(collected, "Pod"), 60, what="the pods collected")


def test_orphan_keeps_replicasets_and_pods(collected, procs):
    assert kubus(procs, "delete", "deployment", "web", "--cascade=orphan", "-n", collected.namespace).returncode == 0
    wait_until(lambda: _gone(collected, "Deployment", "web"), 60, what="the Deployment gone")
    rs = _live(collected, "ReplicaSet")
    assert len(rs) == 1 and not rs[0]["metadata"].get("ownerReferences")
    assert len([p for p in _live(collected, "Pod") if not p["metadata"].get("deletionTimestamp")]) == 3


def test_foreground_holds_the_owner_until_dependents_are_gone(collected, procs):
    ns = collected.namespace
    keys = [f"deployment.{ns}.*", f"replicaset.{ns}.*", f"pod.{ns}.#"]
    watch = Watch(collected, collected.watch_queue(keys)).wait_synced()
    assert kubus(procs, "delete", "deployment", "web", "--cascade=foreground", "-n", ns).returncode == 0
    wait_until(lambda: _gone(collected, "Deployment", "web"), 60, what="the Deployment gone")
    seen = drain(watch, lambda s: any(d.kind == "Deployment" and d.type == "DELETED" for d in s))
    held = [d for d in seen if d.kind == "Deployment" and d.type == "MODIFIED"]
    assert "foregroundDeletion" in held[0].object["metadata"]["finalizers"]
    gone = {d.kind: d.rev for d in seen if d.type == "DELETED"}  # the last deletion of each kind
    assert gone["Pod"] < gone["ReplicaSet"] < gone["Deployment"]
    assert not _live(collected, "ReplicaSet") and not _live(collected, "Pod")


def test_a_deleted_nodes_lease_is_collected(cluster):
    """The Node and the Leases (kube-node-lease's, not the test's namespace) are named after the test's
    namespace; the unowned Lease is removed after."""
    gone, unowned = f"{cluster.namespace}-gone", f"{cluster.namespace}-unowned"
    node = cluster.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": gone}})
    owner = {"apiVersion": "v1", "kind": "Node", "name": gone, "uid": node["metadata"]["uid"]}
    for name in (gone, unowned):
        cluster.create({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                        "metadata": {"name": name, "namespace": "kube-node-lease",
                                     "ownerReferences": [owner] if name == gone else []},
                        "spec": {"holderIdentity": name}})
    cluster.delete("Node", gone)
    wait_until(lambda: _gone(cluster, "Lease", gone, "kube-node-lease"), 30, what="the node's Lease collected")
    assert cluster.get("Lease", unowned, "kube-node-lease")["spec"]["holderIdentity"] == unowned
    cluster.delete("Lease", unowned, "kube-node-lease")
