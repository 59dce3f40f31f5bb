"""The node authorizer as kubus adapts it (k8s-security.md §6): own Node and Lease, bound pods through a
node guard, static node rules for the rest, Kubernetes' reasons otherwise."""
from __future__ import annotations

import pytest

from actors.apiserver.authz.node import node_authorize, node_identity, selects_node
from actors.apiserver.authz.rules import Attributes, Decision, UserInfo

N1 = UserInfo("system:node:n1", ("system:nodes", "system:authenticated"))
ALLOW = Decision(True)
GUARD = Decision(True, node_guard="n1")
SILENT = Decision(False)


def node_req(verb: str, resource: str, group: str = "", **kw) -> Attributes:
    return Attributes(kw.pop("who", N1), verb, resource, group, **kw)


@pytest.mark.parametrize("user, identity", [
    pytest.param(N1, ("n1", True), id="node"),
    pytest.param(UserInfo("system:node:n1"), ("", False), id="name-without-group"),
    pytest.param(UserInfo("alice", ("system:nodes",)), ("", False), id="group-without-name"),
    pytest.param(UserInfo("system:node:", ("system:nodes",)), ("", True), id="empty-node-name"),
])
def test_node_identity(user, identity):
    assert node_identity(user) == identity


def test_not_a_node_has_no_opinion_and_no_reason():
    assert node_authorize(node_req("get", "nodes", name="n1", who=UserInfo("alice"))) == SILENT


def test_a_node_without_a_name():
    who = UserInfo("system:node:", ("system:nodes",))
    assert node_authorize(node_req("get", "nodes", who=who)) == Decision(False, 'unknown node for user "system:node:"')


@pytest.mark.parametrize("attrs, decision", [
    pytest.param(node_req("get", "nodes", name="n1"), ALLOW, id="get-own"),
    pytest.param(node_req("watch", "nodes", name="n1"), ALLOW, id="watch-own-by-name"),
    pytest.param(node_req("list", "nodes"),
                 Decision(False, "node 'n1' cannot read all nodes, only its own Node object"), id="list-all"),
    pytest.param(node_req("get", "nodes", name="n2"),
                 Decision(False, "node 'n1' cannot read 'n2', only its own Node object"), id="get-other"),
    pytest.param(node_req("create", "nodes", name="n2"), ALLOW, id="create-left-to-noderestriction"),
    pytest.param(node_req("patch", "nodes", name="n1"), ALLOW, id="patch"),
    pytest.param(node_req("delete", "nodes", name="n1"), SILENT, id="delete"),
    pytest.param(node_req("update", "nodes", subresource="status", name="n1"), ALLOW, id="status-update"),
    pytest.param(node_req("get", "nodes", subresource="status", name="n1"), SILENT, id="status-get"),
])
def test_nodes(attrs, decision):
    assert node_authorize(attrs) == decision


@pytest.mark.parametrize("attrs, decision", [
    pytest.param(node_req("get", "pods", namespace="dev", name="web"), GUARD, id="get-bound-pod"),
    pytest.param(node_req("get", "pods", namespace="dev"), Decision(False, "No Object name found"), id="get-no-name"),
    pytest.param(node_req("list", "pods", field_selector="spec.nodeName=n1"), ALLOW, id="list-own-pods"),
    pytest.param(node_req("watch", "pods", field_selector="status.phase=Running,spec.nodeName==n1"), ALLOW,
                 id="watch-double-equals-among-terms"),
    pytest.param(node_req("list", "pods", field_selector="spec.nodeName=n2"),
                 Decision(False, "can only list/watch pods with spec.nodeName field selector"), id="list-other-node"),
    pytest.param(node_req("list", "pods", field_selector="spec.nodeName!=n1"),
                 Decision(False, "can only list/watch pods with spec.nodeName field selector"), id="list-not-equal"),
    pytest.param(node_req("watch", "pods", namespace="dev", name="web"), GUARD, id="watch-one-pod-by-name"),
    pytest.param(node_req("create", "pods", namespace="dev"), ALLOW, id="create-mirror-pod"),
    pytest.param(node_req("delete", "pods", namespace="dev", name="web"), GUARD, id="delete-bound-pod"),
    pytest.param(node_req("update", "pods", namespace="dev", name="web"), SILENT, id="update-pod"),
    pytest.param(node_req("patch", "pods", subresource="status", namespace="dev", name="web"), GUARD,
                 id="status-patch"),
    pytest.param(node_req("get", "pods", subresource="status", namespace="dev", name="web"), SILENT,
                 id="status-get"),
    pytest.param(node_req("create", "pods", subresource="eviction", namespace="dev", name="web"), GUARD,
                 id="eviction"),
    pytest.param(node_req("create", "pods", subresource="binding", namespace="dev", name="web"), SILENT,
                 id="binding-is-the-schedulers"),
    pytest.param(node_req("get", "pods", subresource="log", namespace="dev", name="web"), SILENT, id="log"),
])
def test_pods(attrs, decision):
    assert node_authorize(attrs) == decision


LEASES = "coordination.k8s.io"


@pytest.mark.parametrize("attrs, decision", [
    pytest.param(node_req("get", "leases", LEASES, namespace="kube-node-lease", name="n1"), ALLOW, id="get-own"),
    pytest.param(node_req("update", "leases", LEASES, namespace="kube-node-lease", name="n1"), ALLOW, id="renew"),
    pytest.param(node_req("create", "leases", LEASES, namespace="kube-node-lease"), ALLOW, id="create-any-name"),
    pytest.param(node_req("list", "leases", LEASES, namespace="kube-node-lease"),
                 Decision(False, "can only get, create, update, patch, or delete a node lease"), id="list"),
    pytest.param(node_req("get", "leases", LEASES, namespace="kube-system", name="n1"),
                 Decision(False, 'can only access leases in the "kube-node-lease" system namespace'),
                 id="other-namespace"),
    pytest.param(node_req("delete", "leases", LEASES, namespace="kube-node-lease", name="n2"),
                 Decision(False, "can only access node lease with the same name as the requesting node"),
                 id="other-node-lease"),
])
def test_leases(attrs, decision):
    assert node_authorize(attrs) == decision


@pytest.mark.parametrize("attrs, decision", [
    pytest.param(node_req("create", "serviceaccounts", subresource="token", namespace="dev", name="default"), GUARD,
                 id="token-for-named-sa"),
    pytest.param(node_req("create", "serviceaccounts", subresource="token", namespace="dev"),
                 Decision(False, "can only create tokens for individual service accounts"), id="token-without-name"),
    pytest.param(node_req("get", "serviceaccounts", namespace="dev", name="default"),
                 Decision(False, "can only create tokens for individual service accounts"), id="read-sa"),
    pytest.param(node_req("create", "serviceaccounts", namespace="dev", name="default"),
                 Decision(False, "can only create token subresource of serviceaccount"), id="create-sa"),
])
def test_service_account_tokens(attrs, decision):
    assert node_authorize(attrs) == decision


@pytest.mark.parametrize("attrs, decision", [
    pytest.param(node_req("get", "secrets", namespace="prod", name="db"), GUARD,
                 id="secret-get-guarded-by-the-pods-that-reference-it"),
    pytest.param(node_req("get", "configmaps", namespace="prod", name="app"), GUARD, id="configmap-get-guarded"),
    pytest.param(node_req("watch", "secrets", namespace="prod", name="db"),
                 Decision(False, "no relationship found between node 'n1' and this object"), id="secret-watch"),
    pytest.param(node_req("list", "configmaps", namespace="prod"), Decision(False, "No Object name found"),
                 id="configmap-list"),
    pytest.param(node_req("create", "secrets", namespace="prod"),
                 Decision(False, "can only read resources of this type"), id="secret-create"),
    pytest.param(node_req("get", "secrets", name="db"),
                 Decision(False, "can only read namespaced object of this type"), id="secret-cluster-scope"),
    pytest.param(node_req("list", "persistentvolumes"),
                 Decision(False, "can only get individual resources of this type"), id="pv-list"),
    pytest.param(node_req("get", "persistentvolumeclaims", subresource="status", namespace="d", name="c"),
                 Decision(False, "can only get/update/patch this type"), id="pvc-status-get"),
])
def test_objects_without_node_edges(attrs, decision):
    assert node_authorize(attrs) == decision


@pytest.mark.parametrize("attrs, allowed", [
    pytest.param(node_req("create", "events", namespace="dev"), True, id="events-create"),
    pytest.param(node_req("delete", "events", namespace="dev", name="e"), False, id="events-delete"),
    pytest.param(node_req("watch", "services"), True, id="services-read"),
    pytest.param(node_req("list", "endpointslices", "discovery.k8s.io"), True, id="endpointslices-read"),
    pytest.param(node_req("create", "tokenreviews", "authentication.k8s.io"), True, id="tokenreviews"),
    pytest.param(node_req("list", "deployments", "apps"), False, id="deployments"),
    pytest.param(node_req("get", "", path="/healthz"), False, id="non-resource"),
])
def test_static_node_rules(attrs, allowed):
    assert node_authorize(attrs) == Decision(allowed)


@pytest.mark.parametrize("selector, node, selected", [
    pytest.param("spec.nodeName=n1", "n1", True, id="equals"),
    pytest.param("spec.nodeName==n1", "n1", True, id="double-equals"),
    pytest.param("spec.nodeName=n10", "n1", False, id="prefix-is-not-equal"),
    pytest.param("metadata.name=n1", "n1", False, id="other-field"),
    pytest.param("", "n1", False, id="none"),
])
def test_selects_node(selector, node, selected):
    assert selects_node(selector, node) is selected
