"""Escalation prevention: nobody grants permissions they do not hold. Kubernetes runs these checks in
the RBAC REST storage (`pkg/registry/rbac/*/policybased`), after mutating admission and before
validation; `covers` is component-helpers' `policy_comparator.go`."""
from __future__ import annotations

from typing import Callable

from actors.apiserver.authz import authorize, new_forbidden
from actors.apiserver.authz.rbac import (PRIVILEGED_GROUP, REGISTRY, RbacSource, RoleRefError, aggregate_errors,
                                         role_ref_rules, rules_for)
from actors.apiserver.authz.rules import Attributes, Decision, UserInfo
from api.gojson import go_quote, go_quote_list
from api.rbac import RBAC_GROUP
from api.status import StatusError

Authorizer = Callable[[Attributes], Decision]

GO_FIELDS = {"apiGroups": "APIGroups", "resources": "Resources", "nonResourceURLs": "NonResourceURLs",
             "resourceNames": "ResourceNames", "verbs": "Verbs"}  # CompactString's order
FULL_AUTHORITY = [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]},
                  {"verbs": ["*"], "nonResourceURLs": ["*"]}]
ROLE_RESOURCES = {"roles", "clusterroles"}
GC_FIELDS = ("ownerReferences", "finalizers", "managedFields", "resourceVersion", "selfLink")


# ---- covering (policy_comparator.go) --------------------------------------------------------------

def breakdown(rule: dict) -> list[dict]:
    """One group × one resource × one verb (× one name) per piece; URLs as one URL × one verb."""
    pieces = []
    verbs, names = rule.get("verbs") or [], rule.get("resourceNames") or []
    for group in rule.get("apiGroups") or []:
        for resource in rule.get("resources") or []:
            for verb in verbs:
                base = {"apiGroups": [group], "resources": [resource], "verbs": [verb]}
                pieces += [{**base, "resourceNames": [n]} for n in names] if names else [base]
    for url in rule.get("nonResourceURLs") or []:
        pieces += [{"nonResourceURLs": [url], "verbs": [verb]} for verb in verbs]
    return pieces


def _has_all(owned: list[str], wanted: list[str]) -> bool:
    return set(wanted) <= set(owned)


def _resources_cover(owned: list[str], wanted: list[str]) -> bool:
    if "*" in owned or _has_all(owned, wanted):
        return True
    return all(w in owned or ("/" in w and "*/" + w.split("/", 1)[1] in owned) for w in wanted)


def _url_covers(owner: str, url: str) -> bool:
    return owner == url or (owner.endswith("*") and url.startswith(owner.rstrip("*")))


def _list(rule: dict, key: str) -> list[str]:
    return rule.get(key) or []


def rule_covers(owner: dict, piece: dict) -> bool:
    verbs, groups = _list(owner, "verbs"), _list(owner, "apiGroups")
    owner_names, piece_names = _list(owner, "resourceNames"), _list(piece, "resourceNames")
    return (("*" in verbs or _has_all(verbs, _list(piece, "verbs")))
            and ("*" in groups or _has_all(groups, _list(piece, "apiGroups")))
            and _resources_cover(_list(owner, "resources"), _list(piece, "resources"))
            and all(any(_url_covers(o, u) for o in _list(owner, "nonResourceURLs"))
                    for u in _list(piece, "nonResourceURLs"))
            and (not owner_names or (bool(piece_names) and _has_all(owner_names, piece_names))))


def covers(owner_rules: list[dict], requested_rules: list[dict]) -> tuple[bool, list[dict]]:
    """Whether the owner's rules cover every requested piece, and the pieces they do not."""
    missing = [piece for rule in requested_rules for piece in breakdown(rule)
               if not any(rule_covers(owner, piece) for owner in owner_rules)]
    return not missing, missing


def compact_rules(rules: list[dict]) -> list[dict]:
    """Pieces that differ only in verb are merged into one rule, as Kubernetes does before printing."""
    merged: dict[tuple, dict] = {}
    others = []
    for rule in rules:
        key = _simple_key(rule)
        if key is None:
            others.append(rule)
        elif key in merged:
            merged[key]["verbs"] = merged[key]["verbs"] + list(rule.get("verbs") or [])
        else:
            merged[key] = {k: list(v) for k, v in rule.items() if v}
    return others + list(merged.values())


def _simple_key(rule: dict) -> tuple | None:
    groups, resources, names = rule.get("apiGroups") or [], rule.get("resources") or [], rule.get("resourceNames") or []
    if len(names) > 1 or rule.get("nonResourceURLs") or len(groups) != 1 or len(resources) != 1:
        return None
    return groups[0], resources[0], tuple(names)


def compact_string(rule: dict) -> str:
    """`{APIGroups:["apps"], Resources:["deployments"], Verbs:["create" "delete"]}`: non-empty fields only."""
    parts = [f"{go}:{go_quote_list(rule[key])}" for key, go in GO_FIELDS.items() if rule.get(key)]
    return "{" + ", ".join(parts) + "}"


# ---- ConfirmNoEscalation ---------------------------------------------------------------------------

def escalation_message(user: UserInfo, namespace: str, rules: list[dict], source: RbacSource) -> str | None:
    """Why granting `rules` would escalate `user`, or None when the user already holds them all."""
    owned, errors = rules_for(user, namespace, source, REGISTRY)
    ok, missing = covers(owned, rules)
    if ok:
        return None
    listed = "\n".join(sorted({compact_string(r) for r in compact_rules(missing)}))
    message = (f"user {go_quote(user.name)} (groups={go_quote_list(user.groups)}) is attempting to grant RBAC "
               f"permissions not currently held:\n{listed}")
    if errors:
        # RulesFor returns one aggregate error; Go prints the []error holding it
        message += f"; resolution errors: [{aggregate_errors(errors)}]"
    return message


def confirm_no_escalation(user: UserInfo, namespace: str, rules: list[dict], source: RbacSource, *,
                          resource: str = "roles", name: str = "") -> None:
    """Raise Forbidden on `<resource>.rbac.authorization.k8s.io "<name>"` when `rules` escalate."""
    message = escalation_message(user, namespace, rules, source)
    if message is not None:
        raise new_forbidden(RBAC_GROUP, resource, name, message)


def escalation_allowed(user: UserInfo) -> bool:
    return PRIVILEGED_GROUP in user.groups


# ---- Role / ClusterRole writes -----------------------------------------------------------------------

def only_gc_fields_changed(obj: dict, old: dict | None) -> bool:
    """An update that touches only ownerReferences and finalizers (the garbage collector's) skips the checks."""
    if old is None:
        return False
    stamped = {**obj, "metadata": {**(obj.get("metadata") or {})}}
    old_meta = old.get("metadata") or {}
    for key in GC_FIELDS:
        stamped["metadata"].pop(key, None)
        if key in old_meta:
            stamped["metadata"][key] = old_meta[key]
    return stamped == old


def check_role_write(attrs: Attributes, obj: dict, old: dict | None, source: RbacSource,
                     authz: Authorizer | None = None) -> None:
    """Create or update of a Role or ClusterRole (`attrs` is the request). Raises Forbidden."""
    authz = authz or (lambda a: authorize(a, source))
    if escalation_allowed(attrs.user) or only_gc_fields_changed(obj, old) or _may_escalate(attrs, authz):
        return
    name = (obj.get("metadata") or {}).get("name") or attrs.name
    confirm_no_escalation(attrs.user, attrs.namespace, obj.get("rules") or [], source,
                          resource=attrs.resource, name=name)
    if attrs.resource == "clusterroles" and (_aggregated(obj) or _aggregated(old)):
        if escalation_message(attrs.user, attrs.namespace, FULL_AUTHORITY, source) is not None:
            raise new_forbidden(RBAC_GROUP, attrs.resource, name,
                                "must have cluster-admin privileges to use the aggregationRule")


def _aggregated(role: dict | None) -> bool:
    return bool(role and role.get("aggregationRule"))


def _may_escalate(attrs: Attributes, authz: Authorizer) -> bool:
    """RoleEscalationAuthorized: verb `escalate` on the role being written (its name, when the request has one)."""
    if not attrs.resource_request or attrs.api_group != RBAC_GROUP or attrs.resource not in ROLE_RESOURCES:
        return False
    return authz(Attributes(attrs.user, "escalate", attrs.resource, attrs.api_group, "", attrs.namespace,
                            attrs.name)).allowed


# ---- RoleBinding / ClusterRoleBinding writes ---------------------------------------------------------

def check_binding_write(attrs: Attributes, obj: dict, source: RbacSource, authz: Authorizer | None = None,
                        old: dict | None = None) -> None:
    """Create or update of a binding: allowed to system:masters, to holders of `bind` on the role, or
    when the caller holds every rule of the role. Raises BadRequest, NotFound or Forbidden."""
    authz = authz or (lambda a: authorize(a, source))
    if escalation_allowed(attrs.user):
        return
    namespaced = attrs.resource == "rolebindings"
    if namespaced and not attrs.namespace:
        raise StatusError("BadRequest", "namespace is required")
    if only_gc_fields_changed(obj, old):
        return
    ref = obj.get("roleRef") or {}
    if _may_bind(attrs.user, ref, attrs.namespace if namespaced else "", authz):
        return
    try:
        rules = role_ref_rules(ref, attrs.namespace if namespaced else "", source, REGISTRY)
    except RoleRefError as exc:
        raise _unresolved(ref, str(exc)) from None
    name = (obj.get("metadata") or {}).get("name") or attrs.name
    confirm_no_escalation(attrs.user, attrs.namespace, rules, source, resource=attrs.resource, name=name)


def _may_bind(user: UserInfo, ref: dict, namespace: str, authz: Authorizer) -> bool:
    """BindingAuthorized: verb `bind` on the referenced role, in the binding's namespace."""
    resource = {"ClusterRole": "clusterroles", "Role": "roles"}.get(ref.get("kind") or "")
    if resource is None:
        return False
    return authz(Attributes(user, "bind", resource, ref.get("apiGroup") or "", "", namespace,
                            ref.get("name") or "")).allowed


def _unresolved(ref: dict, message: str) -> StatusError:
    """The registry's NotFound for a missing role; an unknown kind is a plain (500) error."""
    resource = {"ClusterRole": "clusterroles", "Role": "roles"}.get(ref.get("kind") or "")
    if resource is None:
        return StatusError("InternalError", message)
    return StatusError("NotFound", message, details={"name": ref.get("name") or "", "group": RBAC_GROUP,
                                                     "kind": resource})
