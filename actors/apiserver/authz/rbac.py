"""The RBAC authorizer: it walks the bindings in the apiserver's cache the way kube-apiserver's
`rbac.go` and `VisitRulesFor` do (the union that runs it is this package's `__init__`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Protocol

from actors.apiserver.authz.rules import Attributes, Decision, UserInfo, rule_allows
from api.gojson import go_quote

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
