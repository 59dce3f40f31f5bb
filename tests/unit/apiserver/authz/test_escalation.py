"""Escalation prevention (k8s-security.md §4.6): covering rules, CompactString, and the checks on role
and binding writes."""
from __future__ import annotations

import pytest

from actors.apiserver.authz.escalation import (breakdown, check_binding_write, check_role_write, compact_rules,
                                               compact_string, confirm_no_escalation, covers)
from actors.apiserver.authz.rules import Attributes, Decision, UserInfo
from api.status import StatusError
from tests.unit.apiserver.authz.test_rbac import GROUP, Source, cluster_role, crb, group, rb, role, user

ALICE = UserInfo("alice", ("dev", "system:authenticated"))
DEPLOYS = {"verbs": ["create", "delete"], "apiGroups": ["apps"], "resources": ["deployments"]}
PODS_READ = {"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}


def test_breakdown_splits_every_dimension():
    rule = {"verbs": ["get", "list"], "apiGroups": ["", "apps"], "resources": ["pods"], "resourceNames": ["a"]}
    assert breakdown(rule) == [
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"], "resourceNames": ["a"]},
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["list"], "resourceNames": ["a"]},
        {"apiGroups": ["apps"], "resources": ["pods"], "verbs": ["get"], "resourceNames": ["a"]},
        {"apiGroups": ["apps"], "resources": ["pods"], "verbs": ["list"], "resourceNames": ["a"]}]
    assert breakdown({"verbs": ["get"], "nonResourceURLs": ["/a", "/b"]}) == [
        {"nonResourceURLs": ["/a"], "verbs": ["get"]}, {"nonResourceURLs": ["/b"], "verbs": ["get"]}]


@pytest.mark.parametrize("owner, requested, covered", [
    pytest.param([PODS_READ], [PODS_READ], True, id="same"),
    pytest.param([PODS_READ], [{**PODS_READ, "verbs": ["delete"]}], False, id="other-verb"),
    pytest.param([{**PODS_READ, "verbs": ["*"]}], [{**PODS_READ, "verbs": ["delete"]}], True, id="star-verb"),
    pytest.param([PODS_READ], [{**PODS_READ, "verbs": ["*"]}], False, id="asking-for-star"),
    pytest.param([{**PODS_READ, "apiGroups": ["*"]}], [{**PODS_READ, "apiGroups": ["apps"]}], True, id="star-group"),
    pytest.param([PODS_READ], [{**PODS_READ, "resources": ["pods/log"]}], False, id="resource-not-subresource"),
    pytest.param([{**PODS_READ, "resources": ["*/log"]}], [{**PODS_READ, "resources": ["pods/log"]}], True,
                 id="star-slash-subresource"),
    pytest.param([{**PODS_READ, "resources": ["*"]}], [{**PODS_READ, "resources": ["pods/log"]}], True,
                 id="star-resource"),
    pytest.param([{**PODS_READ, "resourceNames": ["a"]}], [PODS_READ], False, id="named-owner-unnamed-request"),
    pytest.param([PODS_READ], [{**PODS_READ, "resourceNames": ["a"]}], True, id="unnamed-owner-named-request"),
    pytest.param([{**PODS_READ, "resourceNames": ["a", "b"]}], [{**PODS_READ, "resourceNames": ["b"]}], True,
                 id="named-owner-listed"),
    pytest.param([{"verbs": ["get"], "nonResourceURLs": ["/healthz/*"]}],
                 [{"verbs": ["get"], "nonResourceURLs": ["/healthz/etcd"]}], True, id="url-prefix"),
    pytest.param([{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}],
                 [{"verbs": ["get"], "nonResourceURLs": ["/healthz/etcd"]}], False, id="url-exact-only"),
    pytest.param([{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
                 [{"verbs": ["get"], "nonResourceURLs": ["/metrics"]}], False, id="resources-do-not-cover-urls"),
    pytest.param([{"verbs": ["*"], "nonResourceURLs": ["*"]}], [PODS_READ], False, id="urls-do-not-cover-resources"),
    pytest.param([{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]},
                  {"verbs": ["list"], "apiGroups": [""], "resources": ["pods"]}], [PODS_READ], True,
                 id="pieces-from-two-rules"),
])
def test_covers(owner, requested, covered):
    assert covers(owner, requested)[0] is covered


def test_covers_lists_the_missing_pieces():
    assert covers([PODS_READ], [{**PODS_READ, "verbs": ["get", "delete"]}]) == (
        False, [{"apiGroups": [""], "resources": ["pods"], "verbs": ["delete"]}])


@pytest.mark.parametrize("rule, text", [
    pytest.param(DEPLOYS, '{APIGroups:["apps"], Resources:["deployments"], Verbs:["create" "delete"]}', id="resource"),
    pytest.param({"verbs": ["get"], "nonResourceURLs": ["/metrics"]}, '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
                 id="url"),
    pytest.param({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["web"]},
                 '{APIGroups:[""], Resources:["pods"], ResourceNames:["web"], Verbs:["get"]}', id="named"),
])
def test_compact_string(rule, text):
    assert compact_string(rule) == text


def test_compact_rules_merges_verbs_of_one_resource():
    pieces = covers([], [DEPLOYS, PODS_READ])[1]
    assert sorted(compact_string(r) for r in compact_rules(pieces)) == [
        '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}',
        '{APIGroups:["apps"], Resources:["deployments"], Verbs:["create" "delete"]}']


HELD = Source([cluster_role("reader", PODS_READ), crb("dev-readers", "reader", group("dev"))])


def test_confirm_no_escalation_message():
    with pytest.raises(StatusError) as caught:
        confirm_no_escalation(ALICE, "dev", [PODS_READ, DEPLOYS], HELD, resource="roles", name="deployer")
    assert caught.value.reason == "Forbidden"
    assert caught.value.message == (
        'roles.rbac.authorization.k8s.io "deployer" is forbidden: user "alice" (groups=["dev" "system:authenticated"]) '
        "is attempting to grant RBAC permissions not currently held:\n"
        '{APIGroups:["apps"], Resources:["deployments"], Verbs:["create" "delete"]}')
    assert caught.value.details == {"name": "deployer", "group": GROUP, "kind": "roles"}


def test_confirm_no_escalation_appends_resolution_errors():
    source = Source([*HELD.objects, crb("broken", "gone", user("alice"))])
    with pytest.raises(StatusError) as caught:
        confirm_no_escalation(ALICE, "", [DEPLOYS], source, resource="clusterroles", name="x")
    assert caught.value.message.endswith(
        '{APIGroups:["apps"], Resources:["deployments"], Verbs:["create" "delete"]}; resolution errors: '
        '[clusterroles.rbac.authorization.k8s.io "gone" not found]')


def test_holding_the_rules_is_enough():
    assert confirm_no_escalation(ALICE, "dev", [PODS_READ, {**PODS_READ, "verbs": ["get"]}], HELD) is None


# ---- role writes ---------------------------------------------------------------------------------------

def write(resource: str, who: UserInfo = ALICE, namespace: str = "dev", name: str = "") -> Attributes:
    return Attributes(who, "create", resource, GROUP, "", namespace, name)


def a_role(*rules: dict, name: str = "r", **extra) -> dict:
    return {"metadata": {"name": name}, "rules": list(rules), **extra}


ESCALATOR = Source([*HELD.objects, cluster_role("escalator", {"verbs": ["escalate"], "apiGroups": [GROUP],
                                                              "resources": ["roles", "clusterroles"]}),
                    crb("escalators", "escalator", user("alice"))])
ADMIN = Source([cluster_role("cluster-admin", {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]},
                             {"verbs": ["*"], "nonResourceURLs": ["*"]}), crb("admins", "cluster-admin", user("alice"))])


@pytest.mark.parametrize("attrs, obj, old, source, error", [
    pytest.param(write("roles"), a_role(PODS_READ), None, HELD, None, id="held-rules"),
    pytest.param(write("roles"), a_role(DEPLOYS), None, HELD,
                 'roles.rbac.authorization.k8s.io "r" is forbidden: user "alice"', id="escalating"),
    pytest.param(write("roles", UserInfo("root", ("system:masters",))), a_role(DEPLOYS), None, Source(), None,
                 id="system-masters"),
    pytest.param(write("roles"), a_role(DEPLOYS), None, ESCALATOR, None, id="escalate-verb"),
    pytest.param(write("clusterroles", namespace=""), a_role(aggregationRule={"clusterRoleSelectors": [{}]}), None,
                 HELD, 'clusterroles.rbac.authorization.k8s.io "r" is forbidden: must have cluster-admin privileges '
                       "to use the aggregationRule", id="aggregation-needs-cluster-admin"),
    pytest.param(write("clusterroles", namespace=""), a_role(), a_role(aggregationRule={"clusterRoleSelectors": [{}]}),
                 HELD, "must have cluster-admin privileges to use the aggregationRule", id="removing-aggregation-too"),
    pytest.param(write("clusterroles", namespace=""), a_role(aggregationRule={"clusterRoleSelectors": [{}]}), None,
                 ADMIN, None, id="cluster-admin-may-aggregate"),
    pytest.param(write("roles"), {"metadata": {"name": "r", "finalizers": ["x"]}, "rules": [DEPLOYS]},
                 a_role(DEPLOYS), HELD, None, id="only-gc-fields-changed"),
])
def test_role_writes(attrs, obj, old, source, error):
    if error is None:
        assert check_role_write(attrs, obj, old, source) is None
        return
    with pytest.raises(StatusError) as caught:
        check_role_write(attrs, obj, old, source)
    assert caught.value.reason == "Forbidden" and error in caught.value.message


def test_escalate_is_asked_about_the_role_being_written():
    asked = []
    check_role_write(write("roles", name="r"), a_role(DEPLOYS), a_role(), HELD,
                     authz=lambda a: asked.append(a) or Decision(True))
    assert [(a.verb, a.resource, a.api_group, a.namespace, a.name) for a in asked] == [
        ("escalate", "roles", GROUP, "dev", "r")]


# ---- binding writes -------------------------------------------------------------------------------------

def a_binding(kind: str, role_name: str, name: str = "b") -> dict:
    return {"metadata": {"name": name}, "subjects": [user("bob")],
            "roleRef": {"apiGroup": GROUP, "kind": kind, "name": role_name}}


BINDER = Source([*HELD.objects, cluster_role("deployer", DEPLOYS), role("dev", "local", DEPLOYS),
                 cluster_role("binder", {"verbs": ["bind"], "apiGroups": [GROUP], "resources": ["clusterroles"],
                                         "resourceNames": ["deployer"]}),
                 rb("dev", "may-bind", "ClusterRole", "binder", user("carol"))])


@pytest.mark.parametrize("attrs, obj, error", [
    pytest.param(write("rolebindings"), a_binding("ClusterRole", "reader"), None, id="holds-the-role"),
    pytest.param(write("rolebindings"), a_binding("ClusterRole", "deployer"),
                 ("Forbidden", 'rolebindings.rbac.authorization.k8s.io "b" is forbidden: user "alice" (groups=["dev" '
                               '"system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n'
                               '{APIGroups:["apps"], Resources:["deployments"], Verbs:["create" "delete"]}'),
                 id="escalating"),
    pytest.param(write("rolebindings", UserInfo("carol")), a_binding("ClusterRole", "deployer"), None, id="bind-verb"),
    pytest.param(write("rolebindings", UserInfo("carol"), namespace="prod"), a_binding("ClusterRole", "deployer"),
                 ("Forbidden", 'rolebindings.rbac.authorization.k8s.io "b" is forbidden: user "carol"'),
                 id="bind-only-in-its-namespace"),
    pytest.param(write("rolebindings"), a_binding("Role", "local"),
                 ("Forbidden", 'user "alice"'), id="role-in-namespace"),
    pytest.param(write("rolebindings"), a_binding("ClusterRole", "gone"),
                 ("NotFound", 'clusterroles.rbac.authorization.k8s.io "gone" not found'), id="missing-role"),
    pytest.param(write("rolebindings", namespace=""), a_binding("ClusterRole", "reader"),
                 ("BadRequest", "namespace is required"), id="no-namespace"),
    pytest.param(write("clusterrolebindings", namespace=""), a_binding("ClusterRole", "reader"), None,
                 id="cluster-binding-of-held-role"),
    pytest.param(write("clusterrolebindings", UserInfo("root", ("system:masters",)), namespace=""),
                 a_binding("ClusterRole", "gone"), None, id="system-masters"),
])
def test_binding_writes(attrs, obj, error):
    if error is None:
        assert check_binding_write(attrs, obj, BINDER) is None
        return
    with pytest.raises(StatusError) as caught:
        check_binding_write(attrs, obj, BINDER)
    assert caught.value.reason == error[0] and error[1] in caught.value.message


def test_bind_is_asked_about_the_referenced_role():
    asked = []
    check_binding_write(write("clusterrolebindings", namespace=""), a_binding("ClusterRole", "deployer"), BINDER,
                        authz=lambda a: asked.append(a) or Decision(True))
    assert [(a.verb, a.resource, a.api_group, a.namespace, a.name) for a in asked] == [
        ("bind", "clusterroles", GROUP, "", "deployer")]
