"""The ReplicaSet controller with the scheduler and hollow kubelets: replicas kept, scaled,
orphans adopted, non-matching pods released, no extra pods across a controller kill -9."""
from __future__ import annotations

import pytest

from runtime.client import Client
from tests.integration.conftest import cluster_with, three_nodes
from testkit.waiting import wait_until

SELECTOR = {"app": "web"}
# what `workload` runs besides store and apiserver (a shared_plane test: on the module's plane)
PLANE_ACTORS = [("actors.scheduler",), ("actors.kubelet", "--hollow", "3", "--capacity", "cpu=8,memory=16Gi,pods=110"),
                ("actors.controllers", "replicaset")]


def replicaset(name: str, replicas: int) -> dict:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": SELECTOR},
                     "template": {"metadata": {"labels": SELECTOR},
                                  "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}}}


@pytest.fixture
def workload(procs, settings, request):
    """A store, an apiserver, the scheduler, three hollow nodes and the ReplicaSet controller
    (`procs.controller`). Marked `shared_plane`: those on the module's plane, the client in the test's
    own namespace."""
    yield from cluster_with(procs, settings, request, start_workload, "workload_plane")


def start_workload(procs, client) -> None:
    procs.controller = [procs.start(*args) for args in PLANE_ACTORS][-1]  # the ReplicaSet controller
    three_nodes(client)


@pytest.fixture(scope="module")
def workload_plane(plane):
    """The module's plane once its three nodes are registered; the plane's client."""
    three_nodes(plane.client)
    return plane.client



def owned_pods(client: Client, rs: str) -> list[dict]:
    return [p for p in client.list("Pod", client.namespace).items if not p["metadata"].get("deletionTimestamp")
            and any(r["name"] == rs and r.get("controller") for r in p["metadata"].get("ownerReferences") or [])]


def status(client: Client, rs: str) -> dict:
    return client.get("ReplicaSet", rs).get("status") or {}


@pytest.mark.shared_plane  # the module's plane (nodes, controller), a namespace of its own
def test_keeps_scales_and_reports(workload):
    workload.create(replicaset("web", 5))
    wait_until(lambda: status(workload, "web").get("readyReplicas") == 5, 60, what="5 ready replicas")
    pods = owned_pods(workload, "web")
    assert len(pods) == 5 and all(p["metadata"]["name"].startswith("web-") for p in pods)
    assert status(workload, "web")["observedGeneration"] == 1
    created = [e for e in workload.list("Event", workload.namespace).items if e["reason"] == "SuccessfulCreate"]
    assert len(created) == 5
    workload.patch("ReplicaSet", "web", {"spec": {"replicas": 2}})
    wait_until(lambda: len(owned_pods(workload, "web")) == 2 and status(workload, "web").get("replicas") == 2, 60,
               what="scaled down to 2")
    workload.patch("ReplicaSet", "web", {"spec": {"replicas": 4}})
    wait_until(lambda: status(workload, "web").get("readyReplicas") == 4, 60, what="scaled up to 4")
    assert status(workload, "web")["observedGeneration"] == 3


@pytest.mark.shared_plane  # the module's plane (nodes, controller), a namespace of its own
def test_adopts_orphans_and_releases_pods_that_stop_matching(workload):
    orphan = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "orphan", "labels": SELECTOR},
              "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}
    workload.create(orphan)
    workload.create(replicaset("web", 3))
    wait_until(lambda: len(owned_pods(workload, "web")) == 3, 60, what="3 owned pods")
    assert "orphan" in {p["metadata"]["name"] for p in owned_pods(workload, "web")}
    workload.patch("Pod", "orphan", {"metadata": {"labels": {"app": "other"}}})
    wait_until(lambda: not workload.get("Pod", "orphan")["metadata"].get("ownerReferences") and
               len(owned_pods(workload, "web")) == 3, 60, what="released and replaced")


def test_controller_kill_9_mid_creation_makes_no_extra_pods(workload, procs):  # kills the controller: its own cluster
    workload.create(replicaset("big", 40))
    wait_until(lambda: len(owned_pods(workload, "big")) >= 5, 60, what="creation under way")
    procs.kill9(procs.controller)
    procs.start("actors.controllers", "replicaset", label="rs-controller-again")
    wait_until(lambda: status(workload, "big").get("replicas") == 40, 120, what="40 replicas")
    assert len(owned_pods(workload, "big")) == 40
    assert len([p for p in workload.list("Pod", "default").items if p["metadata"]["name"].startswith("big-")]) == 40


def test_failed_creates_show_as_replica_failure(workload):  # needs no namespace controller: its own cluster
    workload.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "doomed"}})
    rs = {**replicaset("web", 1), "metadata": {"name": "web", "namespace": "doomed"}}
    workload.create(rs)
    wait_until(lambda: len(workload.list("Pod", "doomed").items) == 1, 30, what="the first pod")
    workload.delete("Namespace", "doomed")  # no namespace controller here: it stays Terminating
    workload.patch("ReplicaSet", "web", {"spec": {"replicas": 2}}, "doomed")

    def failure() -> dict | None:
        conditions = (workload.get("ReplicaSet", "web", "doomed").get("status") or {}).get("conditions") or []
        return next((c for c in conditions if c["type"] == "ReplicaFailure"), None)

    cond = wait_until(failure, 30, what="the ReplicaFailure condition")
    assert (cond["status"], cond["reason"]) == ("True", "FailedCreate")
    assert "unable to create new content in namespace doomed" in cond["message"]
    workload.patch("ReplicaSet", "web", {"spec": {"replicas": 1}}, "doomed")
    wait_until(lambda: failure() is None, 30, what="the condition cleared once nothing fails")
