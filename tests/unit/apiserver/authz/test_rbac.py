"""RBAC matching, the authorizer union and the Forbidden message (k8s-security.md §4.3, §4.5)."""
from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from actors.apiserver.authz import audit_annotations, authorize, forbidden
from actors.apiserver.authz.rbac import rbac_authorize, rules_for
from actors.apiserver.authz.rules import Attributes, Decision, UserInfo, rule_allows

GROUP = "rbac.authorization.k8s.io"
ALICE = UserInfo("alice", ("dev", "system:authenticated"))


@dataclass
class Source:
    """An in-memory RbacSource."""

    objects: list[dict] = field(default_factory=list)

    def _of(self, kind: str) -> list[dict]:
        return [o for o in self.objects if o["kind"] == kind]

    def cluster_role_bindings(self):
        return self._of("ClusterRoleBinding")

    def role_bindings(self, namespace):
        return [b for b in self._of("RoleBinding") if b["metadata"]["namespace"] == namespace]

    def role(self, namespace, name):
        return next((r for r in self._of("Role") if r["metadata"] == {"namespace": namespace, "name": name}), None)

    def cluster_role(self, name):
        return next((r for r in self._of("ClusterRole") if r["metadata"]["name"] == name), None)


def cluster_role(name: str, *rules: dict) -> dict:
    return {"kind": "ClusterRole", "metadata": {"name": name}, "rules": list(rules)}


def role(namespace: str, name: str, *rules: dict) -> dict:
    return {"kind": "Role", "metadata": {"namespace": namespace, "name": name}, "rules": list(rules)}


def crb(name: str, role_name: str, *subjects: dict) -> dict:
    return {"kind": "ClusterRoleBinding", "metadata": {"name": name}, "subjects": list(subjects),
            "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": role_name}}


def rb(namespace: str, name: str, kind: str, role_name: str, *subjects: dict) -> dict:
    return {"kind": "RoleBinding", "metadata": {"namespace": namespace, "name": name}, "subjects": list(subjects),
            "roleRef": {"apiGroup": GROUP, "kind": kind, "name": role_name}}


def user(name: str) -> dict:
    return {"kind": "User", "apiGroup": GROUP, "name": name}


def group(name: str) -> dict:
    return {"kind": "Group", "apiGroup": GROUP, "name": name}


def sa(name: str, namespace: str = "") -> dict:
    return {"kind": "ServiceAccount", "name": name, **({"namespace": namespace} if namespace else {})}


PODS_READ = {"verbs": ["get", "list", "watch"], "apiGroups": [""], "resources": ["pods"]}


def req(verb: str, resource: str = "pods", **kw) -> Attributes:
    return Attributes(kw.pop("who", ALICE), verb, resource, **kw)


# ---- one rule against one request -----------------------------------------------------------------

@pytest.mark.parametrize("rule, attrs, allowed", [
    pytest.param(PODS_READ, req("get", namespace="dev", name="web"), True, id="exact"),
    pytest.param(PODS_READ, req("delete", namespace="dev"), False, id="other-verb"),
    pytest.param({**PODS_READ, "verbs": ["*"]}, req("delete"), True, id="any-verb"),
    pytest.param(PODS_READ, req("get", api_group="apps"), False, id="other-group"),
    pytest.param({**PODS_READ, "apiGroups": ["*"]}, req("get", api_group="apps"), True, id="any-group"),
    pytest.param(PODS_READ, req("get", subresource="status"), False, id="pods-does-not-cover-pods-status"),
    pytest.param({**PODS_READ, "resources": ["pods/status"]}, req("get", subresource="status"), True,
                 id="combined-resource"),
    pytest.param({**PODS_READ, "resources": ["*/status"]}, req("get", subresource="status"), True,
                 id="star-slash-subresource"),
    pytest.param({**PODS_READ, "resources": ["*/scale"]}, req("get", subresource="status"), False,
                 id="star-slash-other-subresource"),
    pytest.param({**PODS_READ, "resources": ["*/status"]}, req("get"), False, id="star-slash-needs-a-subresource"),
    pytest.param({**PODS_READ, "resources": ["*"]}, req("get", "nodes"), True, id="any-resource"),
    pytest.param({**PODS_READ, "resourceNames": ["web"]}, req("get", name="web"), True, id="named"),
    pytest.param({**PODS_READ, "resourceNames": ["web"]}, req("get", name="db"), False, id="other-name"),
    pytest.param({**PODS_READ, "resourceNames": ["web"]}, req("list"), False, id="names-never-match-a-plain-list"),
    pytest.param({"verbs": ["get"], "nonResourceURLs": ["/healthz"]}, req("get", "", path="/healthz"), True,
                 id="url"),
    pytest.param({"verbs": ["get"], "nonResourceURLs": ["/healthz/*"]}, req("get", "", path="/healthz/etcd"), True,
                 id="url-prefix"),
    pytest.param({"verbs": ["get"], "nonResourceURLs": ["/healthz"]}, req("get", "", path="/healthz/etcd"), False,
                 id="url-no-prefix"),
    pytest.param({"verbs": ["get"], "nonResourceURLs": ["*"]}, req("get", "", path="/metrics"), True, id="any-url"),
    pytest.param({"verbs": ["get"], "nonResourceURLs": ["*"]}, req("get"), False, id="urls-do-not-cover-resources"),
    pytest.param({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}, req("get", "", path="/metrics"), False,
                 id="resources-do-not-cover-urls"),
])
def test_rule_allows(rule, attrs, allowed):
    assert rule_allows(attrs, rule) is allowed


# ---- the RBAC authorizer ----------------------------------------------------------------------------

WORLD = Source([
    cluster_role("pod-reader", PODS_READ),
    cluster_role("node-reader", {"verbs": ["list"], "apiGroups": [""], "resources": ["nodes"]}),
    role("dev", "deployer", {"verbs": ["patch"], "apiGroups": ["apps"], "resources": ["deployments"]}),
    crb("readers", "node-reader", group("dev")),
    rb("dev", "pods", "ClusterRole", "pod-reader", sa("ci")),
    rb("dev", "deploy", "Role", "deployer", user("bob")),
    rb("prod", "deploy", "Role", "deployer", user("alice")),
])


@pytest.mark.parametrize("attrs, reason", [
    pytest.param(req("list", "nodes"),
                 'RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "node-reader" to Group "dev"',
                 id="group-through-cluster-binding"),
    pytest.param(req("get", namespace="dev", who=UserInfo("system:serviceaccount:dev:ci")),
                 'RBAC: allowed by RoleBinding "pods/dev" of ClusterRole "pod-reader" to ServiceAccount "ci/dev"',
                 id="sa-namespace-from-binding"),
    pytest.param(req("patch", "deployments", api_group="apps", namespace="dev", who=UserInfo("bob")),
                 'RBAC: allowed by RoleBinding "deploy/dev" of Role "deployer" to User "bob"', id="role-in-namespace"),
])
def test_allow_names_the_binding(attrs, reason):
    decision = rbac_authorize(attrs, WORLD)
    assert (decision.allowed, decision.reason) == (True, reason)


@pytest.mark.parametrize("attrs", [
    pytest.param(req("get", namespace="dev"), id="alice-has-no-pod-binding"),
    pytest.param(req("get", namespace="prod", who=UserInfo("system:serviceaccount:dev:ci")), id="binding-elsewhere"),
    pytest.param(req("get", who=UserInfo("system:serviceaccount:dev:ci")), id="cluster-scope-skips-role-bindings"),
    pytest.param(req("patch", "deployments", api_group="apps", namespace="dev"), id="bob-binding-not-alice"),
])
def test_no_opinion(attrs):
    assert rbac_authorize(attrs, WORLD) == Decision(False, "")


@pytest.mark.parametrize("objects, reason", [
    pytest.param([crb("x", "foo", user("alice"))], 'RBAC: clusterrole.rbac.authorization.k8s.io "foo" not found',
                 id="missing-cluster-role"),
    pytest.param([rb("dev", "x", "Role", "foo", user("alice"))], 'RBAC: role.rbac.authorization.k8s.io "foo" not found',
                 id="missing-role"),
    pytest.param([crb("x", "foo", user("alice")), crb("y", "foo", user("alice")), crb("z", "bar", user("alice"))],
                 'RBAC: [clusterrole.rbac.authorization.k8s.io "foo" not found, '
                 'clusterrole.rbac.authorization.k8s.io "bar" not found]', id="several-deduplicated"),
    pytest.param([{**rb("dev", "x", "Role", "foo", user("alice")), "roleRef": {"kind": "Thing", "name": "t"}}],
                 'RBAC: unsupported role reference kind: "Thing"', id="unknown-kind"),
    pytest.param([crb("x", "foo", user("bob"))], "", id="not-my-binding-no-error"),
])
def test_resolution_errors_become_the_reason(objects, reason):
    decision = rbac_authorize(req("get", namespace="dev"), Source(objects))
    assert (decision.allowed, decision.reason) == (False, reason)


def test_a_missing_role_does_not_stop_the_walk():
    source = Source([crb("broken", "gone", user("alice")), cluster_role("pod-reader", PODS_READ),
                     crb("ok", "pod-reader", user("alice"))])
    assert rbac_authorize(req("get", namespace="dev"), source).allowed


def test_service_account_subject_in_a_cluster_binding_needs_its_namespace():
    source = Source([cluster_role("pod-reader", PODS_READ), crb("x", "pod-reader", sa("ci"))])
    assert not rbac_authorize(req("get", who=UserInfo("system:serviceaccount:dev:ci")), source).allowed


def test_rules_for_gathers_cluster_and_namespace_rules_and_errors():
    source = Source([*WORLD.objects, crb("broken", "gone", group("dev"))])
    rules, errors = rules_for(UserInfo("bob", ("dev",)), "dev", source)
    assert rules == [{"verbs": ["list"], "apiGroups": [""], "resources": ["nodes"]},
                     {"verbs": ["patch"], "apiGroups": ["apps"], "resources": ["deployments"]}]
    assert errors == ['clusterrole.rbac.authorization.k8s.io "gone" not found']


# ---- the union ----------------------------------------------------------------------------------------

def test_system_masters_may_do_anything():
    assert authorize(req("delete", "nodes", who=UserInfo("root", ("system:masters",))), Source()).allowed


def test_a_node_is_decided_by_the_node_authorizer_first():
    node = UserInfo("system:node:n1", ("system:nodes",))
    assert authorize(req("get", "nodes", name="n1", who=node), Source()).allowed


def test_reasons_of_every_authorizer_are_joined():
    node = UserInfo("system:node:n1", ("system:nodes",))
    decision = authorize(req("get", "nodes", name="n2", who=node), Source([crb("x", "gone", group("system:nodes"))]))
    assert (decision.allowed, decision.reason) == (
        False, "node 'n1' cannot read 'n2', only its own Node object\n"
               'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found')


def test_rbac_allows_what_the_node_authorizer_has_no_opinion_on():
    node = UserInfo("system:node:n1", ("system:nodes",))
    source = Source([cluster_role("node-reader", {"verbs": ["get"], "apiGroups": [""], "resources": ["nodes"]}),
                     crb("nodes", "node-reader", group("system:nodes"))])
    assert authorize(req("get", "nodes", name="n2", who=node), source).allowed


def test_audit_annotations():
    assert audit_annotations(rbac_authorize(req("list", "nodes"), WORLD)) == {
        "authorization.k8s.io/decision": "allow",
        "authorization.k8s.io/reason": 'RBAC: allowed by ClusterRoleBinding "readers" of ClusterRole "node-reader" '
                                       'to Group "dev"'}


# ---- the 403 --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("attrs, reason, message", [
    pytest.param(req("list", namespace="dev"), "",
                 'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "dev"',
                 id="namespaced-list"),
    pytest.param(req("create", subresource="binding", namespace="dev", name="web-1",
                     who=UserInfo("system:serviceaccount:dev:ci")), "",
                 'pods "web-1" is forbidden: User "system:serviceaccount:dev:ci" cannot create resource '
                 '"pods/binding" in API group "" in the namespace "dev"', id="subresource"),
    pytest.param(req("list", "nodes"), "",
                 'nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope',
                 id="cluster-scope"),
    pytest.param(req("patch", "deployments", api_group="apps", namespace="prod", name="web", who=UserInfo("bob")), "",
                 'deployments.apps "web" is forbidden: User "bob" cannot patch resource "deployments" in API group '
                 '"apps" in the namespace "prod"', id="named-group"),
    pytest.param(req("get", "", path="/metrics", who=UserInfo("system:anonymous")), "",
                 'forbidden: User "system:anonymous" cannot get path "/metrics"', id="non-resource"),
    pytest.param(req("get", "secrets", namespace="prod", name="db", who=UserInfo("system:node:n1")),
                 "no relationship found between node 'n1' and this object",
                 'secrets "db" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in '
                 "the namespace \"prod\": no relationship found between node 'n1' and this object", id="with-reason"),
    pytest.param(req("get", "", path="/a<b>&c", who=UserInfo("eve")), "<r>",
                 'forbidden: User "eve" cannot get path "/a&lt;b&gt;&amp;c": <r>', id="html-escaped-not-the-reason"),
])
def test_forbidden_message(attrs, reason, message):
    err = forbidden(attrs, reason)
    assert (err.reason, err.code, err.message) == ("Forbidden", 403, message)


@pytest.mark.parametrize("attrs, details", [
    pytest.param(req("patch", "deployments", api_group="apps", name="web", subresource="scale"),
                 {"group": "apps", "kind": "deployments", "name": "web"}, id="all-three"),
    pytest.param(req("list"), {"kind": "pods"}, id="core-without-name"),
    pytest.param(req("get", "", path="/metrics"), {}, id="non-resource"),
])
def test_forbidden_details(attrs, details):
    assert forbidden(attrs).to_dict()["details"] == details
