"""Which writes a ValidatingAdmissionPolicy and its binding take (apiserver `policy/matching` and
`predicates`): resourceRules and excludeResourceRules (exclusion wins; resourceNames narrow a rule),
namespaceSelector (cluster-scoped objects always match; a Namespace uses its own labels) and
objectSelector (the new or the old object's labels). Pure: the caller hands over what it read."""
from __future__ import annotations

from dataclasses import dataclass

from api.selectors import from_label_selector


@dataclass(frozen=True)
class Request:
    """What matching sees of a write."""

    operation: str
    group: str
    version: str
    resource: str
    subresource: str
    namespaced: bool
    kind: str
    name: str
    labels: dict | None  # the new object's, None when there is none
    old_labels: dict | None
    namespace_labels: dict | None  # the namespace's, for a namespaced object


def _has(values, value: str) -> bool:
    return "*" in (values or ()) or value in (values or ())


def _resource_matches(resources, resource: str, sub: str) -> bool:
    full = f"{resource}/{sub}" if sub else resource
    for item in resources or ():
        if item == "*/*" or item == full or (item == "*" and not sub):
            return True
        name, _, want_sub = item.partition("/")
        if sub and want_sub and (name == "*" and want_sub == sub or name == resource and want_sub == "*"):
            return True
    return False


def _scope_matches(scope: str | None, req: Request) -> bool:
    if scope in (None, "*"):
        return True
    if scope == "Cluster":
        return not req.namespaced
    return req.namespaced and req.kind != "Namespace"


def rule_matches(rule: dict, req: Request) -> bool:
    if rule.get("resourceNames") and req.name not in rule["resourceNames"]:
        return False
    return (_has(rule.get("operations"), req.operation) and _has(rule.get("apiGroups"), req.group)
            and _has(rule.get("apiVersions"), req.version)
            and _resource_matches(rule.get("resources"), req.resource, req.subresource)
            and _scope_matches(rule.get("scope"), req))


def _namespace_matches(selector: dict | None, req: Request) -> bool:
    if req.kind == "Namespace":
        return from_label_selector(selector or {}).matches(req.labels or {})
    if not req.namespaced:
        return True
    return from_label_selector(selector or {}).matches(req.namespace_labels or {})


def _object_matches(selector: dict | None, req: Request) -> bool:
    chosen = from_label_selector(selector or {})
    return any(labels is not None and chosen.matches(labels) for labels in (req.labels, req.old_labels))


def matches(match: dict | None, req: Request, rules_required: bool = True) -> bool:
    """A policy's matchConstraints (rules required) or a binding's matchResources (none: all)."""
    if not match:
        return not rules_required
    if not _namespace_matches(match.get("namespaceSelector"), req) or \
            not _object_matches(match.get("objectSelector"), req):
        return False
    if any(rule_matches(rule, req) for rule in match.get("excludeResourceRules") or []):
        return False
    rules = match.get("resourceRules")
    return any(rule_matches(rule, req) for rule in rules) if rules else not rules_required
