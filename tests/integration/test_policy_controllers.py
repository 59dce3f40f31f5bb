"""The serviceaccount, resourcequota and clusterrole-aggregation controllers as real processes against
a store and an apiserver; first, the quota recount the controller relies on (`api.quota.recompute`),
on plain objects."""
from __future__ import annotations

import pytest

from api.quota import recompute
from api.times import seconds
from testkit.waiting import wait_until
from tests.integration.test_gc import _gone

EPOCH = "2026-01-01T00:00:00Z"
pytestmark = pytest.mark.shared_plane  # the real-process tests: one control plane, a namespace per test
PLANE_ACTORS = [("actors.controllers", "serviceaccount"), ("actors.controllers", "resourcequota"),
                ("actors.controllers", "clusterrole-aggregation")]


def pod(name, requests=None, limits=None, phase="Pending", init=None, **spec):
    container = {"name": "c", "image": "busybox", "resources": {k: v for k, v in
                                                                (("requests", requests), ("limits", limits)) if v}}
    body = {"containers": [container], **spec}
    if init:
        body["initContainers"] = [{"name": "i", "image": "busybox", "resources": {"requests": init}}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": body,
            "status": {"phase": phase}}


def quota(hard, name="q", **spec):
    return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": name, "namespace": "default"},
            "spec": {"hard": hard, **spec}}


# ---- pure ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("hard, pods, used", [
    pytest.param({"pods": "5", "requests.cpu": "2", "cpu": "2", "requests.memory": "1Gi", "memory": "1Gi"},
                 [pod("a", {"cpu": "100m", "memory": "64Mi"}), pod("b", {"cpu": "400m", "memory": "128Mi"})],
                 {"pods": "2", "requests.cpu": "500m", "cpu": "500m", "requests.memory": "192Mi", "memory": "192Mi"},
                 id="requests-summed"),
    pytest.param({"limits.cpu": "4", "limits.memory": "4Gi"},
                 [pod("a", {"cpu": "1"}, {"cpu": "2", "memory": "1Gi"}), pod("b", {"cpu": "1"})],
                 {"limits.cpu": "2", "limits.memory": "1Gi"}, id="limits-of-those-that-have-them"),
    pytest.param({"pods": "5", "count/pods": "5", "requests.cpu": "2"},
                 [pod("a", {"cpu": "1"}, phase="Succeeded"), pod("b", {"cpu": "1"}, phase="Failed"),
                  pod("c", {"cpu": "1"}, phase="Running")],
                 {"pods": "1", "count/pods": "3", "requests.cpu": "1"}, id="terminal-pods-not-charged-but-counted"),
    pytest.param({"requests.cpu": "4"}, [pod("a", {"cpu": "1"}, init={"cpu": "3"})], {"requests.cpu": "3"},
                 id="init-container-peak"),
    pytest.param({"pods": "5", "services": "2", "count/widgets.example.com": "1"}, [], {"pods": "0"},
                 id="unmeasurable-resources-left-out"),
])
def test_recompute_follows_the_pod_evaluator(hard, pods, used):
    assert recompute(quota(hard), {"Pod": pods}, now=0) == {"hard": hard, "used": used}


def test_a_pod_stuck_terminating_past_its_grace_is_not_charged():
    stuck = pod("a", {"cpu": "1"})
    stuck["metadata"].update(deletionTimestamp=EPOCH, deletionGracePeriodSeconds=30)
    q = quota({"pods": "5"})
    assert recompute(q, {"Pod": [stuck]}, now=seconds(EPOCH) + 29)["used"] == {"pods": "1"}
    assert recompute(q, {"Pod": [stuck]}, now=seconds(EPOCH) + 31)["used"] == {"pods": "0"}


@pytest.mark.parametrize("spec, charged", [
    pytest.param({"scopes": ["BestEffort"]}, ["be"], id="best-effort"),
    pytest.param({"scopes": ["NotBestEffort"]}, ["burst", "late"], id="not-best-effort"),
    pytest.param({"scopes": ["Terminating"]}, ["late"], id="terminating"),
    pytest.param({"scopeSelector": {"matchExpressions": [{"scopeName": "PriorityClass", "operator": "In",
                                                          "values": ["high"]}]}}, ["burst"], id="priority-class"),
])
def test_quota_scopes_pick_the_pods(spec, charged):
    pods = [pod("be"), pod("burst", {"cpu": "1"}, priorityClassName="high"),
            pod("late", {"cpu": "1"}, activeDeadlineSeconds=60)]
    assert recompute(quota({"pods": "9"}, **spec), {"Pod": pods}, now=0)["used"] == {"pods": str(len(charged))}


def placed(obj: dict, namespace: str) -> dict:
    """`obj` in `namespace` (the helpers above make their objects in `default`)."""
    return {**obj, "metadata": {**obj["metadata"], "namespace": namespace}}


def role(name, rules=(), labels=None, selectors=None):
    obj = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
           "metadata": {"name": name, "labels": labels or {}}, "rules": list(rules)}
    if selectors is not None:
        obj["aggregationRule"] = {"clusterRoleSelectors": selectors}
    return obj


READ_PODS = {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}
READ_NODES = {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]}


# ---- real processes --------------------------------------------------------------------------------
def test_every_active_namespace_gets_its_default_service_account_back(cluster):
    team = f"{cluster.namespace}-a"  # the plane runs the serviceaccount controller
    wait_until(lambda: cluster.get("ServiceAccount", "default", "default"), 30, what="default/default")
    cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": team}})
    first = wait_until(lambda: cluster.get("ServiceAccount", "default", team), 30, what=f"{team}/default")
    cluster.delete("ServiceAccount", "default", team)
    again = wait_until(lambda: (sa := cluster.get("ServiceAccount", "default", team))["metadata"]["uid"]
                       != first["metadata"]["uid"] and sa, 30, what=f"{team}/default made again")
    assert again["metadata"]["namespace"] == team
    cluster.delete("Namespace", team)


def _used(client, name="q"):
    return (client.get("ResourceQuota", name, client.namespace).get("status") or {}).get("used")


def test_quota_status_follows_pods_created_finished_and_deleted(cluster):
    here = cluster.namespace  # the plane runs the resourcequota controller
    hard = {"pods": "5", "count/pods": "10", "requests.cpu": "2", "requests.memory": "1Gi", "limits.cpu": "4",
            "count/resourcequotas": "2"}
    cluster.create(placed(quota(hard), here))
    zero = {"pods": "0", "count/pods": "0", "requests.cpu": "0", "requests.memory": "0", "limits.cpu": "0",
            "count/resourcequotas": "1"}
    wait_until(lambda: _used(cluster) == zero, 30, what="an empty namespace's usage")
    assert cluster.get("ResourceQuota", "q", here)["status"]["hard"] == hard
    cluster.create(placed(pod("a", {"cpu": "100m", "memory": "64Mi"}, {"cpu": "1"}), here))
    limited = pod("b", {"cpu": "400m", "memory": "128Mi"}, {"cpu": "500m"})  # a limits.cpu quota needs one
    cluster.create(placed(limited, here))
    two = {**zero, "pods": "2", "count/pods": "2", "requests.cpu": "500m", "requests.memory": "192Mi",
           "limits.cpu": "1500m"}
    wait_until(lambda: _used(cluster) == two, 30, what="two pods charged")
    b = cluster.get("Pod", "b", here)
    cluster.update_status({**b, "status": {**(b.get("status") or {}), "phase": "Failed"}})
    one = {**two, "pods": "1", "requests.cpu": "100m", "requests.memory": "64Mi", "limits.cpu": "1"}
    wait_until(lambda: _used(cluster) == one, 30, what="the failed pod no longer charged")
    cluster.delete("Pod", "a", here)
    cluster.delete("Pod", "b", here)
    wait_until(lambda: _gone(cluster, "Pod", "a", here) and _gone(cluster, "Pod", "b", here), 30,
               what="the pods to go")
    wait_until(lambda: _used(cluster) == zero, 30, what="usage back to zero")


def test_an_aggregated_clusterrole_follows_the_labelled_roles(cluster):
    ours = f"{cluster.namespace}-"  # the roles and their label named after the test's namespace
    agg = {f"example.com/aggregate-to-{ours}watcher": "true"}  # the plane runs the aggregation controller
    cluster.create(role(f"{ours}watcher", selectors=[{"matchLabels": agg}]))
    cluster.create(role(f"{ours}pod-reader", [READ_PODS], agg))

    def rules():
        return cluster.get("ClusterRole", f"{ours}watcher").get("rules") or []

    wait_until(lambda: rules() == [READ_PODS], 30, what="the pod-reader's rules aggregated")
    cluster.create(role(f"{ours}node-reader", [READ_NODES, READ_PODS], agg))
    wait_until(lambda: rules() == [READ_NODES, READ_PODS], 30, what="node-reader's rules, once each, by name")
    cluster.delete("ClusterRole", f"{ours}node-reader")
    wait_until(lambda: rules() == [READ_PODS], 30, what="node-reader's own rule gone")
    cluster.delete("ClusterRole", f"{ours}pod-reader")
    wait_until(lambda: rules() == [], 30, what="nothing left to aggregate")
    cluster.delete("ClusterRole", f"{ours}watcher")
