"""Role, ClusterRole, RoleBinding, ClusterRoleBinding (rbac.authorization.k8s.io/v1): the models,
their defaults and their validation, in the words of Kubernetes' `pkg/apis/rbac/validation`."""
from __future__ import annotations

from typing import Any

from api import names, selectors
from api.gojson import go_json, go_quote
from api.meta import K8sModel, LabelSelector, Resource
from api.status import Cause

RBAC_GROUP = "rbac.authorization.k8s.io"
RBAC_VERSION = f"{RBAC_GROUP}/v1"
AUTOUPDATE = "rbac.authorization.kubernetes.io/autoupdate"
SUBJECT_KINDS = ("ServiceAccount", "User", "Group")


class PolicyRule(K8sModel):
    verbs: list[str] | None = None
    apiGroups: list[str] | None = None
    resources: list[str] | None = None
    resourceNames: list[str] | None = None
    nonResourceURLs: list[str] | None = None


class AggregationRule(K8sModel):
    clusterRoleSelectors: list[LabelSelector] | None = None


class Subject(K8sModel):
    kind: str
    name: str
    apiGroup: str | None = None
    namespace: str | None = None


class RoleRef(K8sModel):
    apiGroup: str = ""  # defaulted to rbac.authorization.k8s.io
    kind: str
    name: str


class Role(Resource):
    API_VERSION = RBAC_VERSION
    KIND = "Role"
    rules: list[PolicyRule] | None = None


class ClusterRole(Resource):
    API_VERSION = RBAC_VERSION
    KIND = "ClusterRole"
    rules: list[PolicyRule] | None = None
    aggregationRule: AggregationRule | None = None


class RoleBinding(Resource):
    API_VERSION = RBAC_VERSION
    KIND = "RoleBinding"
    subjects: list[Subject] | None = None
    roleRef: RoleRef


class ClusterRoleBinding(Resource):
    API_VERSION = RBAC_VERSION
    KIND = "ClusterRoleBinding"
    subjects: list[Subject] | None = None
    roleRef: RoleRef


# ---- field errors in Kubernetes' words ---------------------------------------------------------

def _required(path: str, detail: str = "") -> Cause:
    return Cause(path, f"Required value: {detail}" if detail else "Required value", "FieldValueRequired")


def _invalid(path: str, value: Any, detail: str) -> Cause:
    shown = go_quote(value) if isinstance(value, str) else go_json(value)
    return Cause(path, f"Invalid value: {shown}: {detail}")


def _not_supported(path: str, value: str, supported: tuple[str, ...]) -> Cause:
    listed = ", ".join(go_quote(s) for s in supported)
    return Cause(path, f"Unsupported value: {go_quote(value)}: supported values: {listed}", "FieldValueNotSupported")


# ---- defaults (rbac/v1 SetDefaults_*), applied before validation ----------------------------------

def set_binding_defaults(obj: dict) -> dict:
    """roleRef.apiGroup and User/Group subjects' apiGroup default to rbac.authorization.k8s.io, so
    `kubectl create rolebinding` style objects that leave them out still validate."""
    ref = obj.setdefault("roleRef", {})
    if not ref.get("apiGroup"):
        ref["apiGroup"] = RBAC_GROUP
    for subject in obj.get("subjects") or []:
        if not subject.get("apiGroup") and subject.get("kind") in ("User", "Group"):
            subject["apiGroup"] = RBAC_GROUP
    return obj


# ---- validation --------------------------------------------------------------------------------

def _rule_causes(rule: dict, namespaced: bool, path: str) -> list[Cause]:
    causes = [] if rule.get("verbs") else [_required(f"{path}.verbs", "verbs must contain at least one value")]
    urls = rule.get("nonResourceURLs") or []
    if urls:
        if namespaced:
            causes.append(_invalid(f"{path}.nonResourceURLs", urls,
                                   "namespaced rules cannot apply to non-resource URLs"))
        if rule.get("apiGroups") or rule.get("resources") or rule.get("resourceNames"):
            causes.append(_invalid(f"{path}.nonResourceURLs", urls,
                                   "rules cannot apply to both regular resources and non-resource URLs"))
        return causes
    if not rule.get("apiGroups"):
        causes.append(_required(f"{path}.apiGroups", "resource rules must supply at least one api group"))
    if not rule.get("resources"):
        causes.append(_required(f"{path}.resources", "resource rules must supply at least one resource"))
    if rule.get("resourceNames") and len(rule.get("resources") or []) > 1:
        causes.append(_required(f"{path}.resourceNames", "resource names cannot apply to multiple resources"))
    return causes


def _rules_causes(obj: dict, namespaced: bool) -> list[Cause]:
    return [c for i, rule in enumerate(obj.get("rules") or [])
            for c in _rule_causes(rule or {}, namespaced, f"rules[{i}]")]


def _aggregation_causes(rule: dict | None) -> list[Cause]:
    """An aggregationRule, when present, needs at least one selector that parses."""
    if rule is None:
        return []
    path = "aggregationRule.clusterRoleSelectors"
    chosen = rule.get("clusterRoleSelectors") or []
    if not chosen:
        return [_required(path, "at least one clusterRoleSelector required if aggregationRule is non-nil")]
    causes = []
    for i, selector in enumerate(chosen):
        try:
            selectors.from_label_selector(selector or {})
        except ValueError as exc:
            causes.append(_invalid(f"{path}[{i}]", selector, str(exc)))
    return causes


def _role_ref_causes(ref: dict, kinds: tuple[str, ...]) -> list[Cause]:
    causes = []
    if (ref.get("apiGroup") or "") != RBAC_GROUP:
        causes.append(_not_supported("roleRef.apiGroup", ref.get("apiGroup") or "", (RBAC_GROUP,)))
    if (ref.get("kind") or "") not in kinds:
        causes.append(_not_supported("roleRef.kind", ref.get("kind") or "", kinds))
    name = ref.get("name") or ""
    if not name:
        causes.append(_required("roleRef.name"))
    causes += [_invalid("roleRef.name", name, e) for e in names.path_segment_errors(name)] if name else []
    return causes


def _subject_causes(subject: dict, namespaced: bool, path: str) -> list[Cause]:
    kind, name, group = subject.get("kind") or "", subject.get("name") or "", subject.get("apiGroup") or ""
    causes = [] if name else [_required(f"{path}.name")]
    if kind == "ServiceAccount":
        causes += [_invalid(f"{path}.name", name, e) for e in names.subdomain_errors(name)] if name else []
        if group:
            causes.append(_not_supported(f"{path}.apiGroup", group, ("",)))
        if not namespaced and not subject.get("namespace"):
            causes.append(_required(f"{path}.namespace"))
    elif kind in ("User", "Group"):
        if not name:
            causes.append(_invalid(f"{path}.name", name, f"{kind.lower()} name cannot be empty"))
        if group != RBAC_GROUP:
            causes.append(_not_supported(f"{path}.apiGroup", group, (RBAC_GROUP,)))
    else:
        causes.append(_not_supported(f"{path}.kind", kind, SUBJECT_KINDS))
    return causes


def _binding_causes(obj: dict, namespaced: bool) -> list[Cause]:
    kinds = ("Role", "ClusterRole") if namespaced else ("ClusterRole",)
    causes = _role_ref_causes(obj.get("roleRef") or {}, kinds)
    for i, subject in enumerate(obj.get("subjects") or []):
        causes += _subject_causes(subject or {}, namespaced, f"subjects[{i}]")
    return causes


def validate_role(obj: dict) -> list[Cause]:
    return _rules_causes(obj, namespaced=True)


def validate_cluster_role(obj: dict) -> list[Cause]:
    return _rules_causes(obj, namespaced=False) + _aggregation_causes(obj.get("aggregationRule"))


def validate_role_binding(obj: dict) -> list[Cause]:
    return _binding_causes(obj, namespaced=True)


def validate_cluster_role_binding(obj: dict) -> list[Cause]:
    return _binding_causes(obj, namespaced=False)


def role_ref_update(old: dict, new: dict) -> list[Cause]:
    """roleRef is immutable: a binding to another role is a new binding (delete, then create). Go
    prints the internal RoleRef struct, whose JSON keys are the Go field names."""
    before, after = (_ref_struct(o.get("roleRef") or {}) for o in (old, new))
    return [] if before == after else [_invalid("roleRef", after, "cannot change roleRef")]


def _ref_struct(ref: dict) -> dict[str, str]:
    return {"APIGroup": ref.get("apiGroup") or "", "Kind": ref.get("kind") or "", "Name": ref.get("name") or ""}
