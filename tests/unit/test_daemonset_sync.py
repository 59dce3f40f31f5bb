"""The DaemonSet controller's decisions (daemonnodes.py, daemonsync.py, history.py): node
eligibility by nodeSelector, affinity and taints; the automatic tolerations and the node's affinity
term; create/delete per node; the rolling update within maxUnavailable / maxSurge; status counts;
the history's revisions (k8s-config-workloads.md §6)."""
from __future__ import annotations

import pytest

from actors.controllers import daemonsync, history
from actors.controllers.daemonnodes import (HASH_LABEL, daemon_tolerations, placement, pod_for, should_run,
                                           target_node)
from api import apps_validation
from api.times import rfc3339

T0 = 1_800_000_000.0
NO_SCHEDULE = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
NO_EXECUTE = {"key": "dedicated", "value": "gpu", "effect": "NoExecute"}


def sync(obj: dict, nodes: list[dict], pods: list[dict], **kw) -> daemonsync.Plan:
    return daemonsync.sync(obj, placement(obj, nodes), daemonsync.by_node(pods), "new", T0, **kw)


def ds(template_spec: dict | None = None, strategy: dict | None = None, **spec) -> dict:
    obj = {"apiVersion": "apps/v1", "kind": "DaemonSet",
           "metadata": {"name": "agent", "namespace": "default", "uid": "ds-uid", "generation": 1},
           "spec": {"selector": {"matchLabels": {"app": "agent"}},
                    "template": {"metadata": {"labels": {"app": "agent"}},
                                 "spec": {"containers": [{"name": "c", "image": "agent:1"}], **(template_spec or {})}},
                    **({"updateStrategy": strategy} if strategy else {}), **spec}}
    apps_validation.defaults(obj)
    return obj


def node(name: str, labels: dict | None = None, taints: list[dict] | None = None) -> dict:
    return {"kind": "Node", "metadata": {"name": name, "labels": labels or {}}, "spec": {"taints": taints or []}}


def pod(name: str, node_name: str, hash_: str = "new", ready: bool = True, phase: str = "Running",
        created: float = T0, bound: bool = True) -> dict:
    spec = {"nodeName": node_name} if bound else {"affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}]}}}}
    return {"kind": "Pod", "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}",
                                        "labels": {"app": "agent", HASH_LABEL: hash_},
                                        "creationTimestamp": rfc3339(created)},
            "spec": spec,
            "status": {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if ready else "False",
                                                       "lastTransitionTime": rfc3339(T0)}]}}


@pytest.mark.parametrize("template, labels, taints, expected", [
    pytest.param({}, {}, [], (True, True), id="plain"),
    pytest.param({"nodeSelector": {"disk": "ssd"}}, {"disk": "hdd"}, [], (False, False), id="selector-mismatch"),
    pytest.param({"nodeSelector": {"disk": "ssd"}}, {"disk": "ssd"}, [], (True, True), id="selector-match"),
    pytest.param({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}}},
        {"zone": "b"}, [], (False, False), id="affinity-mismatch"),
    pytest.param({"nodeName": "other"}, {}, [], (False, False), id="node-name"),
    pytest.param({}, {}, [NO_SCHEDULE], (False, True), id="noschedule-keeps-running-pod"),
    pytest.param({}, {}, [NO_EXECUTE], (False, False), id="noexecute-evicts"),
    pytest.param({"tolerations": [{"key": "dedicated", "operator": "Exists"}]}, {}, [NO_EXECUTE], (True, True),
                 id="tolerated"),
    pytest.param({}, {}, [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}], (True, True),
                 id="cordoned-tolerated"),
    pytest.param({}, {}, [{"key": "node.kubernetes.io/network-unavailable", "effect": "NoSchedule"}],
                 (False, True), id="network-unavailable"),
    pytest.param({"hostNetwork": True}, {}, [{"key": "node.kubernetes.io/network-unavailable",
                                              "effect": "NoSchedule"}], (True, True), id="host-network"),
])
def test_should_run(template, labels, taints, expected):
    assert should_run(ds(template), node("n1", labels, taints)) == expected


def test_the_pod_for_a_node_carries_the_affinity_term_tolerations_and_labels():
    made = pod_for(ds({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}}}),
        "n1", "h1")
    assert made["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] == {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}]}
    assert target_node(made) == "n1" and "nodeName" not in made["spec"]
    assert made["metadata"]["labels"] == {"app": "agent", HASH_LABEL: "h1", "pod-template-generation": "1"}
    assert made["metadata"]["generateName"] == "agent-"
    assert made["metadata"]["ownerReferences"][0]["uid"] == "ds-uid"
    keys = [(t["key"], t["effect"]) for t in made["spec"]["tolerations"]]
    assert keys == [("node.kubernetes.io/not-ready", "NoExecute"), ("node.kubernetes.io/unreachable", "NoExecute"),
                    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
                    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
                    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
                    ("node.kubernetes.io/unschedulable", "NoSchedule")]


def test_tolerations_already_there_are_not_repeated():
    mine = {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"}
    assert daemon_tolerations({"tolerations": [mine]}).count(mine) == 1


def test_manage_creates_on_eligible_nodes_and_deletes_elsewhere():
    nodes = [node("n1"), node("n2"), node("n3", taints=[NO_EXECUTE])]
    stray, extra_old, extra_new = pod("p3", "n3"), pod("p2a", "n2", created=T0), pod("p2b", "n2", created=T0 + 5)
    gone = pod("p9", "n9")
    plan = sync(ds(), nodes, [stray, extra_old, extra_new, gone])
    assert plan.create == ["n1"]
    assert [p["metadata"]["name"] for p in plan.delete] == ["p2b", "p3", "p9"]


@pytest.mark.parametrize("strategy, creates", [
    pytest.param(None, [], id="waits-for-the-old-pod-to-go"),
    pytest.param({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}}, ["n1"],
                 id="surge-starts-the-new-at-once"),
])
def test_a_node_whose_only_pod_is_terminating(strategy, creates):
    leaving = pod("p1", "n1", "old")
    leaving["metadata"]["deletionTimestamp"] = rfc3339(T0)
    assert sync(ds(strategy=strategy), [node("n1")], [leaving]).create == creates


def test_an_unbound_pod_counts_for_its_target_node():
    plan = sync(ds(), [node("n1")], [pod("p1", "n1", bound=False)])
    assert not plan.create and not plan.delete


def test_a_failed_pod_is_deleted_with_a_warning_unless_backing_off():
    failed = pod("p1", "n1", phase="Failed")
    plan = sync(ds(), [node("n1")], [failed])
    assert plan.delete == [failed] and plan.failed == ["n1"]
    assert plan.events == [("Warning", "FailedDaemonPod",
                            "Found failed daemon pod default/p1 on node n1, will try to kill it")]
    held = sync(ds(), [node("n1")], [failed], in_backoff=lambda n: True)
    assert not held.delete and held.requeue_after == 1.0


NODES = [node(f"n{i}") for i in range(4)]


@pytest.mark.parametrize("strategy, pods, deletes, creates", [
    pytest.param(None, [pod(f"p{i}", f"n{i}", "old") for i in range(4)], ["p0"], [], id="max-unavailable-1"),
    pytest.param({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "50%", "maxSurge": 0}},
                 [pod(f"p{i}", f"n{i}", "old") for i in range(4)], ["p0", "p1"], [], id="max-unavailable-50%"),
    pytest.param(None, [pod("p0", "n0", "new", ready=False)] + [pod(f"p{i}", f"n{i}", "old") for i in (1, 2, 3)],
                 [], [], id="waits-for-the-new-pod"),
    pytest.param(None, [pod("p0", "n0", "new", ready=False), pod("p1", "n1", "old", ready=False),
                        pod("p2", "n2", "old"), pod("p3", "n3", "old")], ["p1"], [], id="unavailable-old-goes-at-once"),
    pytest.param({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}},
                 [pod(f"p{i}", f"n{i}", "old") for i in range(4)], [], ["n0"], id="surge-starts-beside"),
    pytest.param({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1}},
                 [pod("q0", "n0", "new"), pod("p0", "n0", "old")] + [pod(f"p{i}", f"n{i}", "old") for i in (1, 2, 3)],
                 ["p0"], [], id="surge-old-goes-once-new-available"),
    pytest.param({"type": "OnDelete"}, [pod(f"p{i}", f"n{i}", "old") for i in range(4)], [], [], id="on-delete"),
])
def test_rolling_update(strategy, pods, deletes, creates):
    plan = sync(ds(strategy=strategy), NODES, pods)
    assert [p["metadata"]["name"] for p in plan.delete] == deletes
    assert plan.create == creates


def test_status_counts():
    nodes = NODES + [node("tainted", taints=[NO_EXECUTE])]
    pods = [pod("p0", "n0", "new"), pod("p1", "n1", "old"), pod("p2", "n2", "new", ready=False),
            pod("px", "tainted", "new")]
    status = daemonsync.status(ds(), placement(ds(), nodes), daemonsync.by_node(pods), "new", T0)
    assert status == {"desiredNumberScheduled": 4, "currentNumberScheduled": 3, "numberMisscheduled": 1,
                      "numberReady": 2, "updatedNumberScheduled": 2, "numberAvailable": 2, "numberUnavailable": 2,
                      "observedGeneration": 1}


def test_min_ready_seconds_holds_availability():
    fresh = pod("p0", "n0", "new")
    assert not daemonsync.available(fresh, 10, T0 + 5) and daemonsync.available(fresh, 10, T0 + 10)
    assert sync(ds(minReadySeconds=10), [node("n0")], [fresh]).requeue_after == 10.0  # look again then
    assert sync(ds(), [node("n0")], [fresh]).requeue_after is None


def test_history_snapshot_then_rollback_renumbers():
    one = ds()
    first = history.construct(one, [])
    assert first.current is None and first.create["revision"] == 1
    rev1 = {**first.create, "metadata": {**first.create["metadata"], "resourceVersion": "1"}}
    hash1 = rev1["metadata"]["labels"][HASH_LABEL]
    assert rev1["metadata"]["name"] == f"agent-{hash1}"
    assert rev1["data"]["spec"]["template"]["$patch"] == "replace"
    two = ds({"containers": [{"name": "c", "image": "agent:2"}]})
    second = history.construct(two, [rev1])
    assert second.create["revision"] == 2 and second.create["metadata"]["name"] != rev1["metadata"]["name"]
    rev2 = second.create
    back = history.construct(one, [rev1, rev2])
    assert back.current is rev1 and back.renumber == 3 and back.hash == hash1


def test_history_cleanup_keeps_the_limit_and_live_hashes():
    old = [{"metadata": {"name": f"r{i}", "labels": {HASH_LABEL: f"h{i}"}}, "revision": i} for i in range(1, 5)]
    keep_two = ds(revisionHistoryLimit=2)
    assert [r["metadata"]["name"] for r in history.to_clean(keep_two, old, {"h1"})] == ["r2", "r3"]


@pytest.mark.parametrize("rolling, message", [
    pytest.param({"maxUnavailable": 0, "maxSurge": 0}, "spec.updateStrategy.rollingUpdate.maxUnavailable: "
                 "Required value: cannot be 0 when maxSurge is 0", id="both-zero"),
    pytest.param({"maxUnavailable": 1, "maxSurge": 1}, "spec.updateStrategy.rollingUpdate.maxSurge: "
                 "Invalid value: 1: may not be set when maxUnavailable is non-zero", id="both-set"),
    pytest.param({"maxUnavailable": "150%", "maxSurge": 0}, "spec.updateStrategy.rollingUpdate.maxUnavailable: "
                 "Invalid value: 150%: must not be greater than 100%", id="over-100"),
])
def test_validation_of_the_update_strategy(rolling, message):
    causes = apps_validation.validate_daemonset(ds(strategy={"type": "RollingUpdate", "rollingUpdate": rolling}))
    assert [f"{c.field}: {c.message}" for c in causes] == [message]


def test_validation_of_the_template():
    bad = ds({"restartPolicy": "Never"})
    bad["spec"]["template"]["metadata"]["labels"] = {"app": "other"}
    messages = [f"{c.field}: {c.message}" for c in apps_validation.validate_daemonset(bad)]
    assert messages == ["spec.template.metadata.labels: Invalid value: {'app': 'other'}: `selector` does not match "
                        "template `labels`",
                        'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"']


def test_defaults():
    obj = ds()
    assert obj["spec"]["updateStrategy"] == {"type": "RollingUpdate",
                                             "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}}
    assert obj["spec"]["revisionHistoryLimit"] == 10
