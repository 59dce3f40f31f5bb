"""The default roles and bindings (k8s-security.md §5), aggregation (§4.7) and auto-reconciliation."""
from __future__ import annotations

import copy

import pytest

from actors.apiserver.authz import bootstrap as rbac_defaults
from actors.apiserver.authz.rbac import rbac_authorize
from actors.apiserver.authz.rules import Attributes, UserInfo
from api.aggregation import aggregate
from api.rbac import AUTOUPDATE
from api.registry import lookup
from api.validation import validate
from tests.unit.apiserver.authz.test_rbac import GROUP, Source

ROLES = rbac_defaults.cluster_roles()
BINDINGS = rbac_defaults.cluster_role_bindings()
CONTROLLERS = ("replicaset-controller", "deployment-controller", "generic-garbage-collector", "namespace-controller",
               "node-controller", "service-account-controller", "resourcequota-controller",
               "clusterrole-aggregation-controller", "endpointslice-controller", "endpoint-controller",
               "root-ca-cert-publisher", "job-controller", "ttl-after-finished-controller", "cronjob-controller",
               "replication-controller", "disruption-controller", "persistent-volume-binder", "daemon-set-controller",
               "statefulset-controller", "horizontal-pod-autoscaler",
               "apiextensions-controller")  # kubus: the CRD controllers kube-apiserver runs in process


def by_name(objects: list[dict]) -> dict[str, dict]:
    return {o["metadata"]["name"]: o for o in objects}


def aggregated(roles: list[dict]) -> list[dict]:
    """Run aggregation until nothing changes, as the controller's requeues do."""
    roles = copy.deepcopy(roles)
    for _ in range(len(roles)):
        changed = False
        for role in roles:
            rules = aggregate(role, roles)
            if rules is not None:
                role["rules"], changed = rules, True
        if not changed:
            return roles
    raise AssertionError("aggregation did not settle")


DEFAULTS = Source([*aggregated(ROLES), *BINDINGS])


def test_the_defaults_kubus_keeps():
    assert set(by_name(ROLES)) == {
        "cluster-admin", "admin", "edit", "view", "system:aggregate-to-admin", "system:aggregate-to-edit",
        "system:aggregate-to-view", "system:basic-user", "system:discovery", "system:public-info-viewer",
        "system:kube-scheduler", "system:kube-controller-manager", "system:node-proxier", "system:node",
        "system:coredns", "system:kubus:ingress-controller", "system:kubus:local-path-provisioner",
        "system:aggregated-metrics-reader",
        *(f"system:controller:{c}" for c in CONTROLLERS)}
    assert set(by_name(BINDINGS)) == {
        "cluster-admin", "system:basic-user", "system:discovery", "system:public-info-viewer",
        "system:kube-scheduler", "system:kube-controller-manager", "system:node-proxier", "system:node",
        "system:coredns", "system:kubus:ingress-controller", "system:kubus:local-path-provisioner",
        *(f"system:controller:{c}" for c in CONTROLLERS)}


@pytest.mark.parametrize("obj", [pytest.param(o, id=f'{o["kind"]}-{o["metadata"]["name"]}') for o in ROLES + BINDINGS])
def test_every_default_is_marked_and_valid(obj):
    meta = obj["metadata"]
    assert meta["labels"]["kubernetes.io/bootstrapping"] == "rbac-defaults"
    assert meta["annotations"] == {AUTOUPDATE: "true"}
    assert validate(lookup(obj["kind"]), obj) == []


@pytest.mark.parametrize("binding", [pytest.param(b, id=b["metadata"]["name"]) for b in BINDINGS])
def test_every_binding_points_at_a_default_role(binding):
    assert binding["roleRef"]["name"] in by_name(ROLES)


def test_system_node_is_bound_to_nobody():
    assert "subjects" not in by_name(BINDINGS)["system:node"]


@pytest.mark.parametrize("name", CONTROLLERS)
def test_controller_roles_are_bound_to_their_service_account_and_write_events(name):
    binding = by_name(BINDINGS)[f"system:controller:{name}"]
    assert binding["subjects"] == [{"kind": "ServiceAccount", "name": name, "namespace": "kube-system"}]
    assert can(f"system:serviceaccount:kube-system:{name}", (), "create", "events", namespace="dev")


def can(name: str, groups: tuple[str, ...], verb: str, resource: str, namespace: str = "") -> bool:
    attrs = Attributes(UserInfo(name, groups), verb, resource, namespace=namespace)
    return rbac_authorize(attrs, DEFAULTS).allowed


# `view`, `edit` and `admin` bound in namespace dev to groups of those names (test-only bindings)
VIEWERS = Source([*DEFAULTS.objects, *(
    {"kind": "RoleBinding", "metadata": {"namespace": "dev", "name": role}, "subjects": [
        {"kind": "Group", "apiGroup": GROUP, "name": f"{role}-group"}],
     "roleRef": {"apiGroup": GROUP, "kind": "ClusterRole", "name": role}} for role in ("view", "edit", "admin"))])


@pytest.mark.parametrize("role, verb, resource, group, sub, allowed", [
    pytest.param("view", "list", "pods", "", "", True, id="view-lists-pods"),
    pytest.param("view", "get", "pods", "", "log", True, id="view-reads-logs"),
    pytest.param("view", "get", "secrets", "", "", False, id="view-no-secrets"),
    pytest.param("view", "create", "pods", "", "", False, id="view-no-writes"),
    pytest.param("view", "list", "roles", GROUP, "", False, id="view-no-roles"),
    pytest.param("view", "watch", "resourcequotas", "", "", True, id="view-quotas"),
    pytest.param("view", "list", "pods", "metrics.k8s.io", "", True, id="view-reads-pod-metrics"),
    pytest.param("edit", "get", "pods", "metrics.k8s.io", "", True, id="edit-reads-pod-metrics"),
    pytest.param("view", "list", "horizontalpodautoscalers", "autoscaling", "", True, id="view-lists-hpas"),
    pytest.param("view", "create", "horizontalpodautoscalers", "autoscaling", "", False, id="view-no-hpa-writes"),
    pytest.param("edit", "create", "deployments", "apps", "", True, id="edit-creates-deployments"),
    pytest.param("edit", "patch", "deployments", "apps", "scale", True, id="edit-scales"),
    pytest.param("edit", "get", "deployments", "apps", "", True, id="edit-includes-view"),
    pytest.param("edit", "create", "rolebindings", GROUP, "", False, id="edit-no-rolebindings"),
    pytest.param("edit", "update", "pods", "", "status", False, id="edit-no-status"),
    pytest.param("admin", "create", "rolebindings", GROUP, "", True, id="admin-rolebindings"),
    pytest.param("admin", "delete", "replicasets", "apps", "", True, id="admin-includes-edit"),
    pytest.param("admin", "create", "limitranges", "", "", False, id="admin-no-limitranges"),
])
def test_aggregated_user_roles(role, verb, resource, group, sub, allowed):
    attrs = Attributes(UserInfo("u", (f"{role}-group",)), verb, resource, group, sub, "dev")
    assert rbac_authorize(attrs, VIEWERS).allowed is allowed


@pytest.mark.parametrize("user, groups, verb, resource, group, sub, path, allowed", [
    pytest.param("root", ("system:masters",), "delete", "nodes", "", "", "", True, id="masters-through-rbac"),
    pytest.param("system:kube-scheduler", (), "create", "pods", "", "binding", "", True, id="scheduler-binds"),
    pytest.param("system:kube-scheduler", (), "patch", "pods", "", "status", "", True, id="scheduler-conditions"),
    pytest.param("system:kube-scheduler", (), "create", "pods", "", "", "", False, id="scheduler-no-create"),
    pytest.param("system:kube-controller-manager", (), "watch", "replicasets", "apps", "", "", True,
                 id="kcm-watches-everything"),
    pytest.param("system:kube-proxy", (), "list", "endpointslices", "discovery.k8s.io", "", "", True, id="proxy"),
    pytest.param("system:serviceaccount:kube-system:replicaset-controller", (), "create", "pods", "", "", "", True,
                 id="rs-controller-creates-pods"),
    pytest.param("system:serviceaccount:kube-system:replicaset-controller", (), "create", "deployments", "apps", "",
                 "", False, id="rs-controller-no-deployments"),
    pytest.param("system:serviceaccount:kube-system:clusterrole-aggregation-controller", (), "escalate",
                 "clusterroles", GROUP, "", "", True, id="aggregation-controller-escalates"),
    pytest.param("alice", ("system:authenticated",), "create", "selfsubjectaccessreviews", "authorization.k8s.io",
                 "", "", True, id="basic-user"),
    pytest.param("alice", ("system:authenticated",), "get", "", "", "", "/apis/apps", True, id="discovery"),
    pytest.param("system:anonymous", ("system:unauthenticated",), "get", "", "", "", "/healthz", True,
                 id="public-info"),
    pytest.param("system:anonymous", ("system:unauthenticated",), "get", "", "", "", "/apis", False,
                 id="anonymous-no-discovery"),
    pytest.param("system:node:n1", ("system:nodes",), "get", "nodes", "", "", "", False, id="system-node-unbound"),
])
def test_default_grants(user, groups, verb, resource, group, sub, path, allowed):
    attrs = Attributes(UserInfo(user, groups), verb, resource, group, sub, "dev" if resource else "", "", path)
    assert rbac_authorize(attrs, DEFAULTS).allowed is allowed


# ---- aggregation ---------------------------------------------------------------------------------------

def labelled(name: str, labels: dict, *rules: dict) -> dict:
    return {"metadata": {"name": name, "labels": labels}, "rules": list(rules)}


R1 = {"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}
R2 = {"verbs": ["list"], "apiGroups": [""], "resources": ["pods"]}
AGG = {"metadata": {"name": "agg"}, "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"a": "1"}}]}}


@pytest.mark.parametrize("role, others, rules", [
    pytest.param(AGG, [labelled("b", {"a": "1"}, R2), labelled("a", {"a": "1"}, R1)], [R1, R2], id="sorted-by-name"),
    pytest.param(AGG, [labelled("a", {"a": "1"}, R1), labelled("b", {"a": "1"}, R1, {**R1, "resourceNames": []})],
                 [R1], id="duplicates-dropped-semantically"),
    pytest.param(AGG, [labelled("a", {"a": "2"}, R1)], None, id="no-match-nothing-held"),
    pytest.param({**AGG, "rules": [R1]}, [labelled("a", {"a": "2"}, R1)], [], id="no-match-rules-emptied"),
    pytest.param({**AGG, "rules": [R1]}, [labelled("a", {"a": "1"}, R1)], None, id="unchanged"),
    pytest.param({**AGG, "rules": [R1, R2]}, [labelled("a", {"a": "1"}, R1)], [R1], id="rule-withdrawn"),
    pytest.param({**AGG, "metadata": {"name": "agg", "labels": {"a": "1"}}, "rules": [R2]}, [], [],
                 id="skips-itself"),
    pytest.param({"metadata": {"name": "plain"}, "rules": []}, [labelled("a", {"a": "1"}, R1)], None,
                 id="no-aggregation-rule"),
    pytest.param({**AGG, "aggregationRule": {"clusterRoleSelectors": [
        {"matchExpressions": [{"key": "a", "operator": "In", "values": ["1", "2"]}]}]}},
        [labelled("a", {"a": "2"}, R1)], [R1], id="match-expressions"),
])
def test_aggregate(role, others, rules):
    assert aggregate(role, [role, *others]) == rules


# ---- auto-reconciliation ------------------------------------------------------------------------------

VIEW_ROLE = by_name(ROLES)["system:aggregate-to-view"]
ADMIN_BINDING = by_name(BINDINGS)["cluster-admin"]


def changed(obj: dict, **changes) -> dict:
    obj = copy.deepcopy(obj)
    for key, value in changes.items():
        obj[key] = value
    return obj


def with_annotation(obj: dict, value: str) -> dict:
    obj = copy.deepcopy(obj)
    obj["metadata"]["annotations"][AUTOUPDATE] = value
    return obj


def test_missing_default_is_created():
    assert rbac_defaults.reconcile(None, VIEW_ROLE) == VIEW_ROLE


def test_up_to_date_is_left_alone():
    assert rbac_defaults.reconcile(copy.deepcopy(VIEW_ROLE), VIEW_ROLE) is None


def test_lost_rules_come_back_and_extra_rules_stay():
    extra = {"verbs": ["get"], "apiGroups": ["example.com"], "resources": ["widgets"]}
    existing = changed(VIEW_ROLE, rules=[VIEW_ROLE["rules"][0], extra])
    result = rbac_defaults.reconcile(existing, VIEW_ROLE)
    assert result["rules"][:2] == [VIEW_ROLE["rules"][0], extra]
    assert rbac_defaults.reconcile(result, VIEW_ROLE) is None


def test_autoupdate_false_opts_out():
    assert rbac_defaults.reconcile(with_annotation(changed(VIEW_ROLE, rules=[]), "false"), VIEW_ROLE) is None


def test_labels_and_annotations_are_merged_existing_values_winning():
    existing = copy.deepcopy(VIEW_ROLE)
    existing["metadata"] = {"name": existing["metadata"]["name"], "labels": {"team": "x",
                                                                             "kubernetes.io/bootstrapping": "mine"}}
    meta = rbac_defaults.reconcile(existing, VIEW_ROLE)["metadata"]
    assert meta["labels"] == {"kubernetes.io/bootstrapping": "mine", "team": "x",
                              "rbac.authorization.k8s.io/aggregate-to-view": "true"}
    assert meta["annotations"] == {AUTOUPDATE: "true"}


def test_aggregated_defaults_keep_their_aggregated_rules():
    admin = by_name(aggregated(ROLES))["admin"]
    assert admin["rules"] and rbac_defaults.reconcile(admin, by_name(ROLES)["admin"]) is None


def test_lost_selector_comes_back():
    default = by_name(ROLES)["view"]
    result = rbac_defaults.reconcile(changed(default, aggregationRule={"clusterRoleSelectors": []}), default)
    assert result["aggregationRule"] == default["aggregationRule"]


def test_lost_subject_comes_back_and_extra_subjects_stay():
    extra = {"kind": "User", "apiGroup": GROUP, "name": "ops"}
    result = rbac_defaults.reconcile(changed(ADMIN_BINDING, subjects=[extra]), ADMIN_BINDING)
    assert result["subjects"] == [extra, *ADMIN_BINDING["subjects"]]


def test_changed_role_ref_is_put_back_for_a_recreate():
    existing = changed(ADMIN_BINDING, roleRef={"apiGroup": GROUP, "kind": "ClusterRole", "name": "view"})
    assert rbac_defaults.reconcile(existing, ADMIN_BINDING)["roleRef"] == ADMIN_BINDING["roleRef"]
