"""Role, ClusterRole, RoleBinding, ClusterRoleBinding (rbac.authorization.k8s.io/v1): the models,
their defaults and their validation, in the words of Kubernetes' `pkg/apis/rbac/validation`."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from api import names, selectors
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


# ---- what an authorizer sees and says (apiserver `authorizer.Attributes`, `Decision`) ------------

@dataclass(frozen=True)
class UserInfo:
    name: str
    groups: tuple[str, ...] = ()


@dataclass(frozen=True)
class Attributes:
    """One request as the authorizers see it. `path` is set only for non-resource requests;
    `field_selector` is the request's field selector (the node authorizer reads `spec.nodeName=`)."""

    user: UserInfo
    verb: str
    resource: str = ""
    api_group: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    path: str = ""
    field_selector: str = ""

    @property
    def resource_request(self) -> bool:
        return bool(self.resource) or not self.path

    @property
    def combined_resource(self) -> str:
        """`pods/status`: what RBAC rules and messages call the resource."""
        return f"{self.resource}/{self.subresource}" if self.subresource else self.resource


@dataclass(frozen=True)
class Decision:
    """Allow, or no opinion (RBAC never denies). `node_guard` names the node a pod command must be
    bound to: the node authorizer cannot see the pod, so the store checks it."""

    allowed: bool
    reason: str = ""
    node_guard: str | None = None


# ---- does a rule allow a request (rbac/v1 `evaluation_helpers.go`, `rbac.go` RuleAllows) ----------

def verb_matches(rule: dict, verb: str) -> bool:
    verbs = rule.get("verbs") or ()
    return "*" in verbs or verb in verbs


def api_group_matches(rule: dict, group: str) -> bool:
    groups = rule.get("apiGroups") or ()
    return "*" in groups or group in groups


def resource_matches(rule: dict, combined: str, subresource: str) -> bool:
    """`*`, the exact `resource/subresource`, or `*/<subresource>`: a rule for `pods` does not cover
    `pods/status`."""
    for resource in rule.get("resources") or ():
        if resource in ("*", combined):
            return True
        if subresource and resource == f"*/{subresource}":
            return True
    return False


def resource_name_matches(rule: dict, name: str) -> bool:
    listed = rule.get("resourceNames") or ()
    return not listed or name in listed


def non_resource_url_matches(rule: dict, path: str) -> bool:
    for url in rule.get("nonResourceURLs") or ():
        if url in ("*", path) or (url.endswith("*") and path.startswith(url.rstrip("*"))):
            return True
    return False


def rule_allows(attrs: Attributes, rule: dict) -> bool:
    if not verb_matches(rule, attrs.verb):
        return False
    if not attrs.resource_request:
        return non_resource_url_matches(rule, attrs.path)
    return (api_group_matches(rule, attrs.api_group)
            and resource_matches(rule, attrs.combined_resource, attrs.subresource)
            and resource_name_matches(rule, attrs.name))


def rules_allow(attrs: Attributes, rules: list[dict]) -> bool:
    return any(rule_allows(attrs, rule) for rule in rules)


def new_rule(verbs: str, groups: tuple[str, ...] = (), resources: str = "", names: str = "", urls: str = "") -> dict:
    """A PolicyRule from space-separated words, lists sorted as Kubernetes' `NewRule().RuleOrDie()` sorts them."""
    fields = {"verbs": verbs.split(), "apiGroups": list(groups), "resources": resources.split(),
              "resourceNames": names.split(), "nonResourceURLs": urls.split()}
    return {key: sorted(value) for key, value in fields.items() if value}


# ---- how Go prints values in messages ------------------------------------------------------------

def go_quote(text: str) -> str:
    """Go's `%q` of a string: double-quoted, backslash escapes, printable Unicode kept."""
    return json.dumps(text, ensure_ascii=False)


def go_quote_list(items: list[str] | tuple[str, ...]) -> str:
    """Go's `%q` of a []string: `["a" "b"]`, elements separated by spaces."""
    return "[" + " ".join(go_quote(i) for i in items) + "]"


def go_json(value: Any) -> str:
    """Go's `json.Marshal` (as a field error prints a list or struct): compact, `<>&` escaped."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


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
