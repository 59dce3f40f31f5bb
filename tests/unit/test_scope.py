"""Scope is the request's, never the body's (api/scope.py), as the apiserver and the store apply it:
a namespaced write needs a namespace; an object naming another namespace or name is 400 in
kube-apiserver's words; one that leaves them out is placed where its request says."""
from __future__ import annotations

import msgpack
import pytest

from api import scope
from api.registry import lookup
from api.status import StatusError
from bus.messages import parse_request
from store.commands import execute
from store.state import State

POD, NODE = lookup("Pod"), lookup("Node")
OTHER_NS = "the namespace of the object (team-b) does not match the namespace on the request (default)"


def obj(**meta) -> dict:
    return {"kind": "Pod", "metadata": meta, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}


@pytest.mark.parametrize("verb, kind, namespace, refused", [
    pytest.param("create", "Pod", None, True, id="create"),
    pytest.param("update", "Pod", None, True, id="update"),
    pytest.param("get", "Pod", "", True, id="get-empty"),
    pytest.param("bind", "Pod", None, True, id="bind"),
    pytest.param("token", "ServiceAccount", None, True, id="token"),
    pytest.param("list", "Pod", None, False, id="list-every-namespace"),
    pytest.param("watch", "Pod", None, False, id="watch"),
    pytest.param("create", "Node", None, False, id="cluster-scoped"),
    pytest.param("create", "SelfSubjectAccessReview", None, False, id="review"),
    pytest.param("create", "Pod", "dev", False, id="given"),
])
def test_a_namespaced_request_that_does_not_span_namespaces_needs_one(verb, kind, namespace, refused):
    if not refused:
        assert scope.require_namespace(kind, verb, namespace) is None
        return
    with pytest.raises(StatusError) as err:
        scope.require_namespace(kind, verb, namespace)
    assert (err.value.code, err.value.message) == (400, "Namespace parameter required.")


@pytest.mark.parametrize("verb, name, meta, message", [
    pytest.param("create", None, {"name": "p", "namespace": "team-b"},
                 "the namespace of the provided object does not match the namespace sent on the request",
                 id="create-other-namespace"),
    pytest.param("update", "p", {"name": "p", "namespace": "team-b"}, OTHER_NS, id="update-other-namespace"),
    pytest.param("updateStatus", "p", {"name": "p", "namespace": "team-b"}, OTHER_NS, id="status-other-namespace"),
    pytest.param("update", "p", {"name": "q", "namespace": "default"},
                 "the name of the object (q) does not match the name on the URL (p)", id="update-other-name"),
    pytest.param("update", None, {"name": "p"}, "Name parameter required.", id="update-without-name"),
])
def test_an_object_naming_another_scope_is_400(verb, name, meta, message):
    with pytest.raises(StatusError) as err:
        scope.placed(POD, verb, "default", name, obj(**meta))
    assert (err.value.code, err.value.message) == (400, message)


@pytest.mark.parametrize("verb, name, meta", [
    pytest.param("create", None, {"name": "p"}, id="create-fills-the-namespace"),
    pytest.param("create", None, {"name": "p", "namespace": "default"}, id="create-same-namespace"),
    pytest.param("update", "p", {}, id="update-fills-both"),
])
def test_an_object_that_leaves_its_scope_out_is_placed_where_the_request_says(verb, name, meta):
    placed = scope.placed(POD, verb, "default", name, obj(**meta))
    assert (placed["metadata"]["namespace"], placed["metadata"]["name"]) == ("default", "p")


def test_a_cluster_scoped_object_loses_its_namespace():
    placed = scope.placed(NODE, "update", None, "n1", {"metadata": {"name": "n1", "namespace": "x"}})
    assert placed["metadata"] == {"name": "n1"}


@pytest.mark.parametrize("meta, message", [
    pytest.param({"name": "p", "namespace": "team-b"},
                 "the namespace of the provided object does not match the namespace sent on the request",
                 id="other-namespace"),
    pytest.param({"name": "q"}, "name in URL does not match name in Binding object", id="other-pod"),
    pytest.param({"name": "p", "namespace": "default"}, None, id="its-pod"),
    pytest.param({}, None, id="unnamed"),
])
def test_a_binding_names_only_the_requests_pod(meta, message):
    binding = {"metadata": meta, "target": {"name": "n1"}}
    if message is None:
        assert scope.names_the_pod("Binding", "default", "p", binding) is None
        return
    with pytest.raises(StatusError) as err:
        scope.names_the_pod("Binding", "default", "p", binding)
    assert (err.value.code, err.value.message) == (400, message)


def _store(state: State, **body) -> dict:
    [part] = execute(state, parse_request({"options": {}, **body}), 64 << 10)
    return msgpack.unpackb(part)


@pytest.fixture
def state() -> State:
    state = State(lambda: 0.0)
    state.seed_namespaces()
    state.create("Namespace", None, {"metadata": {"name": "team-b"}})
    for ns, node in (("default", "n1"), ("team-b", "n2")):
        pod = obj(name="p", namespace=ns)
        state.create("Pod", ns, {**pod, "spec": {**pod["spec"], "nodeName": node}})
    return state


@pytest.mark.parametrize("body, message", [
    pytest.param({"verb": "create", "kind": "Pod", "object": obj(name="q", namespace="kube-system")},
                 "Namespace parameter required.", id="create-without-namespace"),
    pytest.param({"verb": "update", "kind": "Pod", "namespace": "default", "name": "p",
                  "object": obj(name="p", namespace="team-b", labels={"owned": "yes"})}, OTHER_NS,
                 id="update-of-another-namespaces-object"),
    pytest.param({"verb": "updateStatus", "kind": "Pod", "namespace": "default", "name": "p",
                  "guard": {"nodeName": "n1", "message": "no"},
                  "object": {"metadata": {"name": "p", "namespace": "team-b"}, "status": {"podIP": "6.6.6.6"}}},
                 OTHER_NS, id="guarded-status-of-another-namespaces-pod"),
])
def test_the_store_writes_only_where_the_request_says(state, body, message):
    reply = _store(state, **body)
    assert (reply["status"]["code"], reply["status"]["message"]) == (400, message)
    victim = state.get("Pod", "team-b", "p").obj
    assert "labels" not in victim["metadata"] and "podIP" not in (victim.get("status") or {})
    assert not list(state.list("Pod", "kube-system", {}))
