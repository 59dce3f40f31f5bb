"""Strategic merge patch (api/patch/strategic), checked against the oracle `kubectl patch --local
--type strategic`: a table of the directives and merge keys, then random Pods and Deployments."""
from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from api.patch.apply import apply_patch
from api.patch.strategic import apply
from api.status import StatusError
from tests.kubectl_oracle import OracleError, kubectl_patch, needs_kubectl

ENV = [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]
POD = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "web", "labels": {"app": "web", "tier": "front"}, "finalizers": ["a", "b"]},
       "spec": {"containers": [{"name": "web", "image": "nginx:1", "args": ["-x", "-y"], "env": ENV,
                                "ports": [{"containerPort": 80, "protocol": "TCP"},
                                          {"containerPort": 443, "protocol": "TCP"}]},
                               {"name": "side", "image": "busybox"}],
                "tolerations": [{"key": "k1", "operator": "Exists"}],
                "volumes": [{"name": "data", "emptyDir": {}}]},
       "status": {"conditions": [{"type": "Ready", "status": "False"},
                                 {"type": "PodScheduled", "status": "True"}]}}
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment",
              "metadata": {"name": "web", "labels": {"app": "web"}},
              "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                       "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
                       "template": {"metadata": {"labels": {"app": "web"}},
                                    "spec": {"containers": [{"name": "web", "image": "nginx:1", "env": ENV}]}}}}
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
        "spec": {"podCIDRs": ["10.0.1.0/24"]},
        "status": {"addresses": [{"type": "InternalIP", "address": "10.1.1.1"}]}}


def _containers(*items) -> dict:
    return {"spec": {"containers": list(items)}}


def _template(*items) -> dict:
    return {"spec": {"template": {"spec": {"containers": list(items)}}}}


CASES = [
    pytest.param(POD, _containers({"name": "web", "env": [{"name": "A", "$patch": "delete"}, {"name": "C"}]}),
                 id="env-delete-and-add-patch-items-first"),
    pytest.param(POD, {"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"], "finalizers": ["c"]}},
                 id="finalizers-delete-from-primitive-list"),
    pytest.param(POD, {"metadata": {"finalizers": ["c", "a"]}}, id="finalizers-union"),
    pytest.param(POD, {"metadata": {"labels": {"tier": None, "new": "x"}}}, id="null-deletes-a-key"),
    pytest.param(POD, _containers({"name": "web", "env": [{"name": "B", "value": "two"}, {"name": "Z", "value": "z"}]}),
                 id="nested-containers-env-merge"),
    pytest.param(POD, _containers({"name": "web", "$setElementOrder/env": [{"name": "B"}, {"name": "C"}, {"name": "A"}],
                                   "env": [{"name": "C", "value": "3"}]}), id="set-element-order"),
    pytest.param(POD, {"metadata": {"$setElementOrder/finalizers": ["b", "z", "a"], "finalizers": ["z"]}},
                 id="set-element-order-of-primitives"),
    pytest.param(POD, _containers({"name": "web", "ports": [{"containerPort": 443, "name": "https"},
                                                            {"containerPort": 8080}]}), id="ports-by-container-port"),
    pytest.param(POD, {"status": {"conditions": [{"type": "Ready", "status": "True"}]}}, id="conditions-by-type"),
    pytest.param(POD, {"spec": {"tolerations": [{"key": "k2", "operator": "Exists"}]}}, id="tolerations-replaced"),
    pytest.param(POD, _containers({"name": "web", "args": ["-z"]}), id="args-replaced"),
    pytest.param(POD, _containers({"name": "side", "$patch": "delete"}, {"name": "new", "image": "x"}),
                 id="container-deleted-and-added"),
    pytest.param(POD, _containers({"name": "web", "env": [{"$patch": "replace"}, {"name": "Q", "value": "q"}]}),
                 id="patch-replace-on-a-list"),
    pytest.param(POD, {"spec": {"volumes": [{"name": "data", "$retainKeys": ["name", "hostPath"],
                                             "hostPath": {"path": "/d"}}]}}, id="volume-source-switched-by-retain-keys"),
    pytest.param(DEPLOYMENT, {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}},
                 id="retain-keys-on-strategy"),
    pytest.param(DEPLOYMENT, {"spec": {"strategy": {"$patch": "replace", "type": "Recreate"}}},
                 id="patch-replace-on-a-map"),
    pytest.param(DEPLOYMENT, {"spec": {"strategy": {"$patch": "delete"}}}, id="patch-delete-of-a-map"),
    pytest.param(DEPLOYMENT, _template({"name": "web", "env": [{"name": "A", "value": "one"}]}, {"name": "sidecar"}),
                 id="template-containers-env"),
    pytest.param(DEPLOYMENT, {"spec": {"template": {"metadata": {"labels": {"v": "2"}}}}}, id="template-labels"),
    pytest.param(NODE, {"spec": {"podCIDRs": ["10.0.2.0/24"]},
                        "status": {"addresses": [{"type": "Hostname", "address": "n1"}]}},
                 id="node-pod-cidrs-and-addresses"),
    pytest.param(POD, {"spec": {"containers": [{"name": "web", "$patch": "merge"}]}}, id="error-patch-merge-on-item"),
    pytest.param(POD, {"spec": {"$patch": "merge"}}, id="error-patch-merge-on-map"),
    pytest.param(POD, _containers({"image": "x"}), id="error-no-merge-key"),
    pytest.param(DEPLOYMENT, {"spec": {"strategy": {"$retainKeys": ["type"], "rollingUpdate": {"maxSurge": 2}}}},
                 id="error-key-outside-retain-keys"),
    pytest.param(POD, {"metadata": {"$setElementOrder/finalizers": ["a"], "finalizers": ["z"]}},
                 id="error-patch-item-outside-set-element-order"),
    pytest.param(POD, _containers({"name": "web", "env": [["A"]]}), id="error-mixed-item-types"),
]


def _outcome(run) -> object:
    """A result, or the error's Go message (a 422's cause carries it)."""
    try:
        return run()
    except OracleError as exc:
        return ("error", str(exc))
    except StatusError as exc:
        return ("error", (exc.causes[0].message if exc.causes else exc.message).strip())


@needs_kubectl
@pytest.mark.parametrize("obj, patch", CASES)
def test_strategic_patch_is_kubectls(obj, patch, tmp_path):
    before = copy.deepcopy(obj)
    want = _outcome(lambda: kubectl_patch(tmp_path, obj, patch, "strategic"))
    assert _outcome(lambda: apply(obj["kind"], obj, patch)) == want
    assert obj == before


def test_patch_items_come_first_and_deletions_leave_the_live_order():
    env = apply("Pod", POD, _containers({"name": "web", "env": [{"name": "A", "$patch": "delete"}, {"name": "C"}]}))
    assert [e["name"] for e in env["spec"]["containers"][0]["env"]] == ["C", "B"]
    meta = apply("Pod", POD, {"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"], "finalizers": ["c"]}})
    assert meta["metadata"]["finalizers"] == ["c", "b"]


@pytest.mark.parametrize("patch, reason, message", [
    pytest.param([{"op": "add"}], "BadRequest", "json: cannot unmarshal array into Go value of type map[string]interface {}",
                 id="not-an-object"),
    pytest.param({"spec": {"$retainKeys": "type"}}, "BadRequest", "invalid patch format of retainKeys",
                 id="retain-keys-not-a-list"),
    pytest.param({"metadata": {"$setElementOrder": []}}, "BadRequest", "invalid patch format of setElementOrder list",
                 id="set-element-order-without-list"),
    pytest.param({"metadata": {"finalizers": [["x"]]}}, "Invalid",
                 "the server rejected our request due to an error in our request", id="list-of-lists"),
])
def test_bad_patches_are_answered_as_kubernetes_does(patch, reason, message):
    pod = {**POD, "metadata": {"name": "web", "finalizers": []}}
    with pytest.raises(StatusError) as err:
        apply_patch("Pod", pod, patch, "strategic")
    assert (err.value.reason, err.value.message) == (reason, message)


def test_directives_left_in_added_items_do_not_reach_the_store():
    patch = _containers({"name": "new", "image": "x", "$setElementOrder/env": [{"name": "Q"}], "env": [{"name": "Q"}]})
    containers = apply_patch("Pod", POD, patch, "strategic")["spec"]["containers"]
    assert containers[0] == {"name": "new", "image": "x", "env": [{"name": "Q"}]}
    assert "$setElementOrder/env" in apply("Pod", POD, patch)["spec"]["containers"][0]  # as Go leaves it


# ---- random Pods and Deployments against the oracle ----------------------------------------------
NAMES = ("A", "B", "C", "D")
FINALIZERS = ("a", "b", "c", "d")


def _keyed(item, key: str, choices) -> st.SearchStrategy:
    """Lists of items unique by `key`, drawn from `choices`."""
    return st.lists(st.sampled_from(choices), unique=True, max_size=3).flatmap(
        lambda keys: st.tuples(*[item(k) for k in keys]).map(list))


def _env_item(name: str) -> st.SearchStrategy:
    return st.one_of(st.just({"name": name}), st.sampled_from("123").map(lambda v: {"name": name, "value": v}))


def _container(name: str) -> st.SearchStrategy:
    return st.fixed_dictionaries({"name": st.just(name), "image": st.sampled_from(["x", "y"])}, optional={
        "env": _keyed(_env_item, "name", NAMES),
        "ports": _keyed(lambda p: st.just({"containerPort": p}), "containerPort", (80, 443, 8080)),
        "args": st.lists(st.sampled_from(["-a", "-b"]), max_size=2)})


def _pod_spec() -> st.SearchStrategy:
    return st.fixed_dictionaries({"containers": _keyed(_container, "name", ("web", "side", "init"))},
                                 optional={"tolerations": st.lists(st.just({"operator": "Exists"}), max_size=1)})


def _meta() -> st.SearchStrategy:
    return st.fixed_dictionaries({"name": st.just("obj")}, optional={
        "labels": st.dictionaries(st.sampled_from(["a", "b", "c"]), st.sampled_from(["1", "2"]), max_size=2),
        "finalizers": st.lists(st.sampled_from(FINALIZERS), unique=True, max_size=3)})


def _env_patch_item(name: str) -> st.SearchStrategy:
    return st.one_of(_env_item(name), st.just({"name": name, "$patch": "delete"}))


def _container_patch(name: str) -> st.SearchStrategy:
    return st.one_of(
        st.just({"name": name, "$patch": "delete"}),
        st.fixed_dictionaries({"name": st.just(name)}, optional={
            "image": st.sampled_from(["x", "z"]), "env": _keyed(_env_patch_item, "name", NAMES),
            "ports": _keyed(lambda p: st.just({"containerPort": p, "name": "p"}), "containerPort", (80, 8080)),
            "args": st.none() | st.lists(st.just("-c"), max_size=1)}))


@st.composite
def _finalizers_patch(draw) -> dict:
    order = draw(st.permutations(FINALIZERS))[:draw(st.integers(0, 4))]
    added = [f for f in order if draw(st.booleans())]
    patch: dict = {"finalizers": added} if added or draw(st.booleans()) else {}
    if draw(st.booleans()):
        patch["$setElementOrder/finalizers"] = order
    dropped = [f for f in FINALIZERS if f not in added and draw(st.booleans())]
    if dropped:
        patch["$deleteFromPrimitiveList/finalizers"] = dropped
    return patch


def _meta_patch() -> st.SearchStrategy:
    labels = st.dictionaries(st.sampled_from(["a", "b", "x"]), st.none() | st.just("9"), max_size=2)
    return st.tuples(labels, _finalizers_patch()).map(lambda t: {**({"labels": t[0]} if t[0] else {}), **t[1]})


def _pod_spec_patch() -> st.SearchStrategy:
    containers = _keyed(_container_patch, "name", ("web", "side", "extra"))
    return st.fixed_dictionaries({}, optional={
        "containers": containers | containers.map(lambda c: [{"$patch": "replace"}, *c]),
        "tolerations": st.lists(st.just({"key": "t", "operator": "Exists"}), max_size=1)})


POD_OBJECTS = st.fixed_dictionaries({"apiVersion": st.just("v1"), "kind": st.just("Pod"), "metadata": _meta(),
                                     "spec": _pod_spec()})
POD_PATCHES = st.fixed_dictionaries({}, optional={"metadata": _meta_patch(), "spec": _pod_spec_patch()})
STRATEGIES = st.sampled_from([{"type": "Recreate"}, {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}])
STRATEGY_PATCHES = st.sampled_from([
    {"$retainKeys": ["type"], "type": "Recreate"}, {"rollingUpdate": {"maxUnavailable": 1}},
    {"$patch": "delete"}, {"$patch": "replace", "type": "Recreate"}, {"rollingUpdate": None}])
DEPLOYMENT_OBJECTS = st.fixed_dictionaries({
    "apiVersion": st.just("apps/v1"), "kind": st.just("Deployment"), "metadata": _meta(),
    "spec": st.fixed_dictionaries({"template": st.fixed_dictionaries({"spec": _pod_spec()})},
                                  optional={"strategy": STRATEGIES, "replicas": st.integers(0, 3)})})
DEPLOYMENT_PATCHES = st.fixed_dictionaries({}, optional={"metadata": _meta_patch(), "spec": st.fixed_dictionaries(
    {}, optional={"strategy": STRATEGY_PATCHES, "replicas": st.none() | st.just(5),
                  "template": st.fixed_dictionaries({"spec": _pod_spec_patch()})})})
OBJECTS_AND_PATCHES = st.tuples(POD_OBJECTS, POD_PATCHES) | st.tuples(DEPLOYMENT_OBJECTS, DEPLOYMENT_PATCHES)


def _same_as_kubectl(obj: dict, patch: dict) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        want = _outcome(lambda: kubectl_patch(Path(tmp), obj, patch, "strategic"))
    assert _outcome(lambda: apply(obj["kind"], obj, patch)) == want, json.dumps(patch)


@needs_kubectl
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OBJECTS_AND_PATCHES)
def test_random_patches_match_kubectl(case):
    _same_as_kubectl(*case)


@pytest.mark.slow
@needs_kubectl
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OBJECTS_AND_PATCHES)
def test_many_random_patches_match_kubectl(case):
    _same_as_kubectl(*case)
