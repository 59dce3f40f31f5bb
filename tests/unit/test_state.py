"""The store's state machine, in memory: revisions, CAS, names, deletion, binding, digests."""
import copy

import pytest

from api.status import StatusError
from bus.digest import object_digest
from store.state import State


@pytest.fixture
def state():
    clock = [1_700_000_000.0]
    s = State(lambda: clock[0])
    s.seed_namespaces()
    s.take_changes()
    return s


def pod(name, node=None, **meta):
    spec = {"containers": [{"name": "c", "image": "x"}], "terminationGracePeriodSeconds": 30}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default", **meta},
            "spec": spec}


def test_every_change_takes_the_next_revision(state):
    start = state.rev
    a = state.create("Pod", "default", pod("a")).obj
    b = state.create("Pod", "default", pod("b")).obj
    assert (a["metadata"]["resourceVersion"], b["metadata"]["resourceVersion"]) == (str(start + 1), str(start + 2))
    changes = state.take_changes()
    assert [(c.type, c.rev, c.prev) for c in changes] == [("ADDED", start + 1, 0), ("ADDED", start + 2, 0)]


def test_update_cas_and_no_op(state):
    a = state.create("Pod", "default", pod("a")).obj
    same = state.update("Pod", "default", copy.deepcopy(a), a["metadata"]["resourceVersion"]).obj
    assert same["metadata"]["resourceVersion"] == a["metadata"]["resourceVersion"]  # nothing changed, no revision
    changed = copy.deepcopy(a)
    changed["metadata"]["labels"] = {"x": "y"}
    new = state.update("Pod", "default", changed, a["metadata"]["resourceVersion"]).obj
    assert int(new["metadata"]["resourceVersion"]) == int(a["metadata"]["resourceVersion"]) + 1
    with pytest.raises(StatusError) as err:
        state.update("Pod", "default", changed, a["metadata"]["resourceVersion"])
    assert err.value.reason == "Conflict"


def test_update_keeps_status_and_immutable_fields(state):
    a = state.create("Pod", "default", pod("a")).obj
    a = state.update("Pod", "default", {**a, "status": {"phase": "Running"}}, None, status_only=True).obj
    changed = copy.deepcopy(a)
    changed["status"] = {"phase": "Failed"}
    changed["metadata"]["labels"] = {"l": "1"}
    kept = state.update("Pod", "default", changed, None).obj
    assert kept["status"]["phase"] == "Running"
    changed = copy.deepcopy(kept)
    changed["metadata"]["uid"] = "forged"
    with pytest.raises(StatusError) as err:
        state.update("Pod", "default", changed, None)
    assert err.value.causes[0].field == "metadata.uid"


def test_replicaset_generation_follows_spec(state):
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "r", "namespace": "default"},
          "spec": {"replicas": 1, "selector": {}}}
    created = state.create("ReplicaSet", "default", rs).obj
    assert created["metadata"]["generation"] == 1
    scaled = state.update("ReplicaSet", "default", {**created, "spec": {"replicas": 3, "selector": {}}},
                          created["metadata"]["resourceVersion"]).obj
    assert scaled["metadata"]["generation"] == 2
    unconditional = {**scaled, "metadata": {k: v for k, v in scaled["metadata"].items() if k != "resourceVersion"}}
    with pytest.raises(StatusError) as err:
        state.update("ReplicaSet", "default", unconditional, None)  # a ReplicaSet needs a resourceVersion
    assert err.value.reason == "Invalid"


def test_generate_name(state):
    made = state.create("Pod", "default", {**pod(""), "metadata": {"generateName": "x" * 70 + "-"}}).obj
    assert len(made["metadata"]["name"]) == 63


@pytest.mark.parametrize("node,phase,options,terminating", [
    pytest.param(None, None, {}, False, id="unbound-goes-at-once"),
    pytest.param("n1", None, {}, True, id="bound-waits-for-kubelet"),
    pytest.param("n1", "Succeeded", {}, False, id="finished-goes-at-once"),
    pytest.param("n1", None, {"gracePeriodSeconds": 0}, False, id="grace-zero"),
])
def test_pod_deletion(state, node, phase, options, terminating):
    p = state.create("Pod", "default", pod("p", node)).obj
    if phase:
        state.update("Pod", "default", {**p, "status": {"phase": phase}}, None, status_only=True)
    out = state.delete("Pod", "default", "p", options).obj
    assert (state.objects.get(("Pod", "default", "p")) is not None) is terminating
    if terminating:
        assert out["metadata"]["deletionGracePeriodSeconds"] == 30


def test_bind_moves_the_routing_key(state):
    state.create("Pod", "default", pod("p"))
    state.take_changes()
    bound = state.bind("default", "p", {"target": {"kind": "Node", "name": "n-1.x"}}, None).obj
    change = state.take_changes()[0]
    assert (change.from_key, change.key) == ("pod.default.-", "pod.default.n-1_x")
    assert bound["status"]["conditions"][0]["type"] == "PodScheduled"
    with pytest.raises(StatusError) as err:
        state.bind("default", "p", {"target": {"name": "n2"}}, None)
    assert "already assigned" in err.value.message


def test_digests_track_objects_per_key(state):
    a = state.create("Pod", "default", pod("a")).obj
    b = state.create("Pod", "default", pod("b")).obj
    d = state.digests["pod.default.-"]
    assert d.count == 2
    assert d.digest == object_digest(a["metadata"]["uid"], a["metadata"]["resourceVersion"]) ^ \
        object_digest(b["metadata"]["uid"], b["metadata"]["resourceVersion"])
    state.delete("Pod", "default", "a", {})
    assert state.digests["pod.default.-"].count == 1


def test_snapshot_and_list(state):
    state.create("Pod", "default", pod("a", labels={"app": "x"}))
    state.create("Pod", "default", pod("b", "n1"))
    assert {e.obj["metadata"]["name"] for e in state.snapshot(["pod.*.n1"])} == {"b"}
    assert {e.obj["metadata"]["name"] for e in state.list("Pod", "default", {"labelSelector": "app=x"})} == {"a"}
    assert {e.obj["metadata"]["name"] for e in state.list("Pod", None, {"fieldSelector": "spec.nodeName=n1"})} == {"b"}
