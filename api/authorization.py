"""Who may do what. The RBAC authorizer walks the bindings in the apiserver's cache the way
kube-apiserver's `rbac.go` and `VisitRulesFor` do; `authorize` is the union kube-apiserver runs
(system:masters first, then Node, then RBAC); `forbidden` is the 403 a denied request gets."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Protocol

from api.node_authorizer import node_authorize
from api.rbac import Attributes, Decision, UserInfo, go_quote, rule_allows
from api.status import StatusError

__all__ = ["Attributes", "Decision", "UserInfo", "RbacSource", "authorize", "rbac_authorize", "rules_for",
           "role_ref_rules", "forbidden", "new_forbidden", "audit_annotations", "aggregate_errors"]

PRIVILEGED_GROUP = "system:masters"
SA_PREFIX = "system:serviceaccount:"
# How a missing role is named: the authorizer reads listers (singular resource), the escalation
# check in the REST storage reads the registry (plural resource).
LISTER = {"Role": "role", "ClusterRole": "clusterrole"}
REGISTRY = {"Role": "roles", "ClusterRole": "clusterroles"}


class RbacSource(Protocol):
    """The RBAC objects the authorizer reads; the apiserver's policy cache implements it."""

    def cluster_role_bindings(self) -> Iterable[dict]: ...

    def role_bindings(self, namespace: str) -> Iterable[dict]: ...

    def role(self, namespace: str, name: str) -> dict | None: ...

    def cluster_role(self, name: str) -> dict | None: ...


class RoleRefError(Exception):
    """A binding whose role cannot be resolved; collected, never fatal to the walk."""


@dataclass(frozen=True)
class Grant:
    """One rule, and the binding and subject that gave it to the user."""

    binding: dict
    subject: dict
    rule: dict


# ---- the walk (VisitRulesFor) ------------------------------------------------------------------

def applies_to(user: UserInfo, subject: dict, namespace: str) -> bool:
    kind, name = subject.get("kind"), subject.get("name") or ""
    if kind == "User":
        return user.name == name
    if kind == "Group":
        return name in user.groups
    if kind == "ServiceAccount":
        sa_namespace = subject.get("namespace") or namespace
        return bool(sa_namespace) and user.name == f"{SA_PREFIX}{sa_namespace}:{name}"
    return False


def role_ref_rules(ref: dict, namespace: str, source: RbacSource, wording: dict[str, str] = LISTER) -> list[dict]:
    """The rules a roleRef points at; RoleRefError names what is missing."""
    kind, name = ref.get("kind") or "", ref.get("name") or ""
    if kind not in wording:
        raise RoleRefError(f"unsupported role reference kind: {go_quote(kind)}")
    role = source.role(namespace, name) if kind == "Role" else source.cluster_role(name)
    if role is None:
        raise RoleRefError(f"{wording[kind]}.rbac.authorization.k8s.io {go_quote(name)} not found")
    return [r for r in role.get("rules") or [] if r]


def walk(user: UserInfo, namespace: str, source: RbacSource,
         wording: dict[str, str] = LISTER) -> Iterator[Grant | RoleRefError]:
    """Every rule granted to `user`: ClusterRoleBindings first, then the namespace's RoleBindings.
    A binding whose role is missing yields its error and the walk goes on."""
    yield from _bindings(user, source.cluster_role_bindings(), "", source, wording)
    if namespace:
        yield from _bindings(user, source.role_bindings(namespace), namespace, source, wording)


def _bindings(user: UserInfo, bindings: Iterable[dict], namespace: str, source: RbacSource,
              wording: dict[str, str]) -> Iterator[Grant | RoleRefError]:
    for binding in bindings:
        subject = next((s for s in binding.get("subjects") or [] if applies_to(user, s, namespace)), None)
        if subject is None:
            continue
        try:
            rules = role_ref_rules(binding.get("roleRef") or {}, namespace, source, wording)
        except RoleRefError as exc:
            yield exc
            continue
        yield from (Grant(binding, subject, rule) for rule in rules)


def rules_for(user: UserInfo, namespace: str, source: RbacSource,
              wording: dict[str, str] = LISTER) -> tuple[list[dict], list[str]]:
    """All of the user's rules in `namespace` (cluster-wide ones included), and the resolution errors."""
    rules, errors = [], []
    for item in walk(user, namespace, source, wording):
        if isinstance(item, RoleRefError):
            errors.append(str(item))
        else:
            rules.append(item.rule)
    return rules, errors


# ---- decisions -----------------------------------------------------------------------------------

def describe(grant: Grant) -> str:
    """`ClusterRoleBinding "x" of ClusterRole "y" to User "u"` / `RoleBinding "x/ns" of Role "y" to …`."""
    meta, ref = grant.binding.get("metadata") or {}, grant.binding.get("roleRef") or {}
    namespace = meta.get("namespace") or ""
    what = f'RoleBinding {go_quote(meta.get("name", "") + "/" + namespace)}' if namespace \
        else f'ClusterRoleBinding {go_quote(meta.get("name", ""))}'
    return f'{what} of {ref.get("kind", "")} {go_quote(ref.get("name", ""))} to {_subject(grant.subject, namespace)}'


def _subject(subject: dict, namespace: str) -> str:
    name = subject.get("name") or ""
    if subject.get("kind") == "ServiceAccount":
        name = f'{name}/{subject.get("namespace") or namespace}'
    return f'{subject.get("kind", "")} {go_quote(name)}'


def aggregate_errors(errors: list[str]) -> str:
    """Go's `utilerrors.NewAggregate(...).Error()`: one error as itself, several as `[a, b]`, deduplicated."""
    unique = list(dict.fromkeys(errors))
    if len(errors) == 1 or len(unique) == 1:
        return unique[0] if unique else ""
    return "[" + ", ".join(unique) + "]"


def rbac_authorize(attrs: Attributes, source: RbacSource) -> Decision:
    """Allow on the first rule that matches; otherwise no opinion, naming any roles it could not find."""
    errors = []
    for item in walk(attrs.user, attrs.namespace, source):
        if isinstance(item, RoleRefError):
            errors.append(str(item))
        elif rule_allows(attrs, item.rule):
            return Decision(True, f"RBAC: allowed by {describe(item)}")
    return Decision(False, f"RBAC: {aggregate_errors(errors)}" if errors else "")


def authorize(attrs: Attributes, source: RbacSource) -> Decision:
    """The union: system:masters may do anything; then the node authorizer, then RBAC. The first
    allow wins; if none allows, their reasons are joined with newlines."""
    if PRIVILEGED_GROUP in attrs.user.groups:
        return Decision(True)
    node = node_authorize(attrs)
    if node.allowed:
        return node
    rbac = rbac_authorize(attrs, source)
    if rbac.allowed:
        return rbac
    return Decision(False, "\n".join(r for r in (node.reason, rbac.reason) if r))


def audit_annotations(decision: Decision) -> dict[str, str]:
    return {"authorization.k8s.io/decision": "allow" if decision.allowed else "forbid",
            "authorization.k8s.io/reason": decision.reason}


# ---- the 403 -------------------------------------------------------------------------------------

def forbidden_message(attrs: Attributes) -> str:
    user, verb = go_quote(attrs.user.name), attrs.verb
    if not attrs.resource_request:
        return f"User {user} cannot {verb} path {go_quote(attrs.path)}"
    resource, group = go_quote(attrs.combined_resource), go_quote(attrs.api_group)
    head = f"User {user} cannot {verb} resource {resource} in API group {group}"
    if attrs.namespace:
        return f"{head} in the namespace {go_quote(attrs.namespace)}"
    return f"{head} at the cluster scope"


def _sanitize(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def forbidden(attrs: Attributes, reason: str = "") -> StatusError:
    """What a denied request gets: `pods "web-1" is forbidden: User "u" cannot … : <reason>`."""
    message = _sanitize(forbidden_message(attrs))
    why = f"{message}: {reason}" if reason else message
    if not attrs.resource_request:
        return new_forbidden("", "", "", why)
    return new_forbidden(attrs.api_group, attrs.resource, attrs.name, why)


def new_forbidden(group: str, resource: str, name: str, why: str) -> StatusError:
    """apimachinery `NewForbidden`: the prefix names `resource.group` (no subresource), details carry
    group, kind (= the resource) and name, each only when set."""
    qualified = f"{resource}.{group}" if group else resource
    if not group and not resource:
        message = f"forbidden: {why}"
    elif not name:
        message = f"{qualified} is forbidden: {why}"
    else:
        message = f"{qualified} {go_quote(name)} is forbidden: {why}"
    details = {k: v for k, v in (("name", name), ("group", group), ("kind", resource)) if v}
    return StatusError("Forbidden", message, details=details)
