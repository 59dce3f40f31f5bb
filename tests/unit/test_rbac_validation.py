"""RBAC objects are checked with Kubernetes' messages and field paths (k8s-security.md §4.2)."""
from __future__ import annotations

import pytest

from api import rbac
from api.registry import lookup
from api.validation import validate

GROUP = "rbac.authorization.k8s.io"


def messages(causes) -> list[str]:
    return [f"{c.field}: {c.message}" for c in causes]


def role_with(*rules: dict) -> dict:
    return {"metadata": {"name": "r", "namespace": "dev"}, "rules": list(rules)}


@pytest.mark.parametrize("rule, namespaced, expected", [
    pytest.param({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}, True, [], id="plain-rule"),
    pytest.param({"apiGroups": [""], "resources": ["pods"]}, True,
                 ["rules[0].verbs: Required value: verbs must contain at least one value"], id="no-verbs"),
    pytest.param({"verbs": ["get"], "nonResourceURLs": ["/healthz"]}, True,
                 ['rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to '
                  'non-resource URLs'], id="urls-in-a-role"),
    pytest.param({"verbs": ["get"], "nonResourceURLs": ["/healthz"]}, False, [], id="urls-in-a-cluster-role"),
    pytest.param({"verbs": ["get"], "nonResourceURLs": ["/x"], "resources": ["pods"]}, False,
                 ['rules[0].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources '
                  'and non-resource URLs'], id="urls-and-resources"),
    pytest.param({"verbs": ["get"]}, True,
                 ["rules[0].apiGroups: Required value: resource rules must supply at least one api group",
                  "rules[0].resources: Required value: resource rules must supply at least one resource"],
                 id="no-groups-no-resources"),
    pytest.param({"verbs": ["get"], "apiGroups": [""], "resources": ["pods", "nodes"], "resourceNames": ["a"]},
                 True, ["rules[0].resourceNames: Required value: resource names cannot apply to multiple resources"],
                 id="names-with-two-resources"),
])
def test_rule_checks(rule, namespaced, expected):
    check = rbac.validate_role if namespaced else rbac.validate_cluster_role
    assert messages(check({"rules": [rule]})) == expected


@pytest.mark.parametrize("aggregation, expected", [
    pytest.param({"clusterRoleSelectors": [{"matchLabels": {"a": "b"}}]}, [], id="one-selector"),
    pytest.param({"clusterRoleSelectors": []},
                 ["aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required "
                  "if aggregationRule is non-nil"], id="no-selectors"),
])
def test_aggregation_rule(aggregation, expected):
    assert messages(rbac.validate_cluster_role({"aggregationRule": aggregation})) == expected


def binding(kind: str = "ClusterRole", name: str = "view", group: str = GROUP, subjects=None) -> dict:
    return {"metadata": {"name": "b", "namespace": "dev"}, "roleRef": {"apiGroup": group, "kind": kind, "name": name},
            "subjects": subjects or []}


@pytest.mark.parametrize("obj, expected", [
    pytest.param(binding(), [], id="valid"),
    pytest.param(binding(group="rbac"),
                 ['roleRef.apiGroup: Unsupported value: "rbac": supported values: "rbac.authorization.k8s.io"'],
                 id="wrong-group"),
    pytest.param(binding(kind="Pod"),
                 ['roleRef.kind: Unsupported value: "Pod": supported values: "Role", "ClusterRole"'], id="wrong-kind"),
    pytest.param(binding(name=""), ["roleRef.name: Required value"], id="no-role-name"),
    pytest.param(binding(name="a/b"), ["roleRef.name: Invalid value: \"a/b\": may not contain '/'"], id="slash"),
    pytest.param(binding(subjects=[{"kind": "ServiceAccount", "name": "ci"}]), [], id="sa-without-namespace"),
    pytest.param(binding(subjects=[{"kind": "ServiceAccount", "name": "ci", "apiGroup": GROUP}]),
                 ['subjects[0].apiGroup: Unsupported value: "rbac.authorization.k8s.io": supported values: ""'],
                 id="sa-with-group"),
    pytest.param(binding(subjects=[{"kind": "User", "name": "alice"}]),
                 ['subjects[0].apiGroup: Unsupported value: "": supported values: "rbac.authorization.k8s.io"'],
                 id="user-without-group"),
    pytest.param(binding(subjects=[{"kind": "Group", "name": "", "apiGroup": GROUP}]),
                 ["subjects[0].name: Required value", 'subjects[0].name: Invalid value: "": group name cannot be empty'],
                 id="group-without-name"),
    pytest.param(binding(subjects=[{"kind": "Robot", "name": "r2"}]),
                 ['subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"'],
                 id="unknown-kind"),
])
def test_role_binding(obj, expected):
    assert messages(rbac.validate_role_binding(obj)) == expected


@pytest.mark.parametrize("obj, expected", [
    pytest.param(binding(kind="Role"),
                 ['roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"'], id="role-ref-to-role"),
    pytest.param(binding(subjects=[{"kind": "ServiceAccount", "name": "ci"}]),
                 ["subjects[0].namespace: Required value"], id="sa-needs-namespace"),
    pytest.param(binding(subjects=[{"kind": "ServiceAccount", "name": "Bad_Name", "namespace": "x"}]),
                 ['subjects[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower '
                  "case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character "
                  "(e.g. 'example.com', regex used for validation is "
                  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"], id="sa-bad-name"),
])
def test_cluster_role_binding(obj, expected):
    assert messages(rbac.validate_cluster_role_binding(obj)) == expected


@pytest.mark.parametrize("new_ref, expected", [
    pytest.param({"apiGroup": GROUP, "kind": "ClusterRole", "name": "view"}, [], id="same"),
    pytest.param({"apiGroup": GROUP, "kind": "ClusterRole", "name": "edit"},
                 ['roleRef: Invalid value: {"APIGroup":"rbac.authorization.k8s.io","Kind":"ClusterRole","Name":"edit"}'
                  ": cannot change roleRef"], id="changed-name"),
])
def test_role_ref_is_immutable(new_ref, expected):
    old = binding()
    assert messages(rbac.role_ref_update(old, {**old, "roleRef": new_ref})) == expected


def test_defaults_fill_the_groups_kubectl_leaves_out():
    obj = {"roleRef": {"kind": "ClusterRole", "name": "view"},
           "subjects": [{"kind": "User", "name": "alice"}, {"kind": "ServiceAccount", "name": "ci"}]}
    rbac.set_binding_defaults(obj)
    assert obj["roleRef"]["apiGroup"] == GROUP
    assert [s.get("apiGroup") for s in obj["subjects"]] == [GROUP, None]
    assert rbac.validate_role_binding(obj) == []


def test_validation_runs_the_binding_checks_for_the_kind():
    obj = {"metadata": {"name": "b"}, "roleRef": {"apiGroup": GROUP, "kind": "Role", "name": "x"}}
    assert messages(validate(lookup("ClusterRoleBinding"), obj)) == [
        'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"']


def test_rbac_names_are_path_segments():
    obj = role_with({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]})
    obj["metadata"]["name"] = "system:controller:x"
    assert validate(lookup("Role"), obj) == []
