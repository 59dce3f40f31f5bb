"""The apiserver's chain as pure logic over an in-memory policy cache: request attributes, the
memoized authorizer, and admission in Kubernetes' order."""
from __future__ import annotations

import pytest

from actors.apiserver import admission
from actors.apiserver.admission import Attempt
from actors.apiserver.attributes import of_key, of_request
from actors.apiserver.authz import Authorizer
from actors.apiserver.authz.rules import UserInfo
from actors.apiserver.policycache import PolicyCache
from api.admission import admit
from api.registry import lookup
from api.status import StatusError
from bus.messages import parse_request
from runtime.cache import Delta

ALICE = UserInfo("alice", ("system:authenticated",))
NODE_1 = UserInfo("system:node:node-1", ("system:nodes", "system:authenticated"))


def cache_with(*objects: dict) -> PolicyCache:
    cache = PolicyCache()
    for i, obj in enumerate(objects, 1):
        obj["metadata"].setdefault("resourceVersion", str(i))
        cache.on_delta(Delta("ADDED", obj["kind"], obj, i))
    return cache


@pytest.mark.parametrize("user, key, expected", [
    pytest.param(ALICE, "pod.team-a.*", ("pods", "team-a", "", ""), id="a-namespace"),
    pytest.param(ALICE, "pod.*.*", ("pods", "", "", ""), id="every-namespace"),
    pytest.param(ALICE, "pod.#", ("pods", "", "", ""), id="hash"),
    pytest.param(ALICE, "deployment.shop.-", ("deployments", "shop", "", ""), id="grouped-kind"),
    pytest.param(NODE_1, "pod.*.node-1", ("pods", "", "spec.nodeName=node-1", ""), id="a-nodes-own-pods"),
    pytest.param(NODE_1, "pod.*.node-2", ("pods", "", "", ""), id="another-nodes-pods"),
    pytest.param(NODE_1, "node.-.node-1", ("nodes", "", "", "node-1"), id="a-nodes-own-node"),
    pytest.param(ALICE, "#", ("*", "", "", ""), id="everything"),
])
def test_a_binding_key_is_a_list_or_watch_of_a_kind(user, key, expected):
    attrs = of_key(user, "watch", key)
    assert (attrs.resource, attrs.namespace, attrs.field_selector, attrs.name) == expected
    assert attrs.verb == "watch"


@pytest.mark.parametrize("body, expected", [
    pytest.param({"verb": "updateStatus", "kind": "Pod", "namespace": "dev", "name": "p"},
                 ("update", "pods", "status", "dev"), id="status"),
    pytest.param({"verb": "bind", "kind": "Pod", "namespace": "dev", "name": "p", "object": {"target": {"name": "n"}}},
                 ("create", "pods", "binding", "dev"), id="binding"),
    pytest.param({"verb": "logs", "kind": "Pod", "namespace": "dev", "name": "p"}, ("get", "pods", "log", "dev"),
                 id="log"),
    pytest.param({"verb": "patch", "kind": "deploy", "namespace": "shop", "name": "d"},
                 ("patch", "deployments", "", "shop"), id="patch"),
    pytest.param({"verb": "list", "kind": "Node"}, ("list", "nodes", "", ""), id="cluster-scoped"),
    pytest.param({"verb": "token", "kind": "ServiceAccount", "namespace": "dev", "name": "default",
                  "options": {"pod": "p"}}, ("create", "serviceaccounts", "token", "dev"), id="token"),
    # scope is the request's: without a namespace, the cluster scope (not `default`, not the body's)
    pytest.param({"verb": "list", "kind": "Pod"}, ("list", "pods", "", ""), id="list-every-namespace"),
    pytest.param({"verb": "create", "kind": "Pod", "object": {"metadata": {"namespace": "dev"}}},
                 ("create", "pods", "", ""), id="create-not-in-the-bodys"),
])
def test_a_request_is_a_kubernetes_verb_on_a_resource(body, expected):
    [attrs] = of_request(ALICE, parse_request(body))
    assert (attrs.verb, attrs.resource, attrs.subresource, attrs.namespace) == expected


def _view_binding() -> dict:
    return {"kind": "RoleBinding", "metadata": {"name": "b", "namespace": "team-a"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "reader"},
            "subjects": [{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}]}


def test_the_authorizer_forgets_its_decisions_when_rbac_changes():
    reader = {"kind": "ClusterRole", "metadata": {"name": "reader"},
              "rules": [{"verbs": ["list"], "apiGroups": [""], "resources": ["pods"]}]}
    cache = cache_with(reader)
    authz = Authorizer(cache)
    [attrs] = of_request(ALICE, parse_request({"verb": "list", "kind": "Pod", "namespace": "team-a"}))
    with pytest.raises(StatusError) as refused:
        authz.check([attrs])
    assert refused.value.message == \
        'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "team-a"'
    cache.on_delta(Delta("ADDED", "RoleBinding", _view_binding(), 9))
    assert authz.check([attrs]).allowed
    cache.on_delta(Delta("DELETED", "RoleBinding", _view_binding(), 10))
    assert not authz.allowed(attrs)


def _admitted(cache: PolicyCache, obj: dict, user: UserInfo = ALICE, namespace: str = "default") -> Attempt:
    info = lookup(obj["kind"])
    attempt = Attempt("CREATE", info, "", namespace, obj["metadata"]["name"], None, None, user, cache)

    def mutate(parsed: dict) -> dict:
        attempt.obj = parsed
        admission.mutate(attempt)
        return attempt.obj

    attempt.obj = admit(info.kind, obj, namespace, mutate=mutate)
    admission.validate(attempt)
    return attempt


def _pod(name: str = "p", **container) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "app", "image": "busybox", **container}]}}


def test_a_new_pod_gets_its_account_priority_and_tolerations():
    spec = _admitted(cache_with(), _pod()).obj["spec"]
    assert (spec["serviceAccountName"], spec["priority"], spec["preemptionPolicy"]) == \
           ("default", 0, "PreemptLowerPriority")
    assert {(t["key"], t["tolerationSeconds"]) for t in spec["tolerations"]} == \
           {("node.kubernetes.io/not-ready", 300), ("node.kubernetes.io/unreachable", 300)}


def test_a_restricted_namespace_refuses_a_privileged_pod():
    ns = {"kind": "Namespace", "metadata": {"name": "default",
                                            "labels": {"pod-security.kubernetes.io/enforce": "baseline"}}}
    with pytest.raises(StatusError) as refused:
        _admitted(cache_with(ns), _pod(securityContext={"privileged": True}))
    assert refused.value.message == 'pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged ' \
                                    '(container "app" must not set securityContext.privileged=true)'


def test_a_node_may_not_set_restricted_labels_on_itself():
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {
        "name": "node-1", "labels": {"node-restriction.kubernetes.io/pool": "gold"}}}
    with pytest.raises(StatusError) as refused:
        _admitted(cache_with(), node, NODE_1, namespace="")
    assert refused.value.message == 'nodes "node-1" is forbidden: node "node-1" is not allowed to set the ' \
                                    'following labels: node-restriction.kubernetes.io/pool'


def test_a_rule_naming_objects_allows_those_only_and_a_general_rule_every_name():
    named = {"kind": "ClusterRole", "metadata": {"name": "reader"},
             "rules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"]}]}
    authz = Authorizer(cache_with(named, _view_binding()))

    def get(name: str) -> bool:
        return authz.allowed(of_request(ALICE, parse_request({"verb": "get", "kind": "Pod", "namespace": "team-a",
                                                              "name": name}))[0])
    assert (get("a"), get("b")) == (True, False)
    named["rules"][0].pop("resourceNames")
    authz.cache.on_delta(Delta("MODIFIED", "ClusterRole", named, 20))
    assert (get("a"), get("b")) == (True, True)
