"""Kubernetes' authz CEL library (apiserver `pkg/cel/library/authz.go`, 1.27+) over cel-python:
`authorizer.group(g).resource(r)[.subresource(s)][.namespace(ns)][.name(n)].check(verb)`,
`authorizer.path(p).check(httpVerb)`, `authorizer.serviceAccount(ns, name)` (the checks then ask as
that account's user), `authorizer.requestResource` (the request's own resource, a ResourceCheck) and
a Decision's `allowed()`, `reason()`, `errored()`, `error()`.

The checks go to an `Authorize` callable the caller hands over (the apiserver's own authorizer): pure
here, no I/O. A check costs CHECK_STEPS of the evaluation's budget — Kubernetes prices one at 350,000
cost units against a per-call limit of 1,000,000, so an expression makes two checks, not three.
Not here: `fieldSelector`/`labelSelector` (1.31, AuthorizeWithSelectors)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import lark
from celpy import celtypes
from celpy.evaluation import CELEvalError

from api.cel.budget import charge
from api.names import label_errors, subdomain_errors

CHECK_STEPS = 70_000  # one check's price in budget steps (a step is about 5 cost units)
SA_PREFIX = "system:serviceaccount:"


@dataclass(frozen=True)
class Subject:
    """Who the checks are asked for (apiserver `user.Info`)."""

    name: str
    groups: tuple[str, ...] = ()
    uid: str = ""
    extra: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @classmethod
    def service_account(cls, namespace: str, name: str) -> "Subject":
        """`serviceaccount.ServiceAccountInfo.UserInfo()`: the account's user and its two groups."""
        return cls(f"{SA_PREFIX}{namespace}:{name}", ("system:serviceaccounts", f"system:serviceaccounts:{namespace}"))


@dataclass(frozen=True)
class Ask:
    """One authorization question (apiserver `AttributesRecord`): a resource request, or a path."""

    subject: Subject
    verb: str
    group: str = ""
    resource: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    path: str = ""


@dataclass(frozen=True)
class Verdict:
    """What the authorizer said: allowed, its reason, and an error if it could not decide."""

    allowed: bool
    reason: str = ""
    error: str = ""


Authorize = Callable[[Ask], Verdict]


# ---- the CEL values: receiver-only objects, no fields but the authorizer's requestResource --------
class _Receiver:
    type_name = ""

    def __repr__(self) -> str:
        return self.type_name


class Authorizer(celtypes.MapType):
    """`kubernetes.authorization.Authorizer`. A map only so that `authorizer.requestResource` selects;
    it holds nothing else a CEL expression can see."""

    type_name = "kubernetes.authorization.Authorizer"

    def __init__(self, subject: Subject, authorize: Authorize):
        super().__init__()
        self.subject, self.authorize = subject, authorize

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other) -> bool:
        return self is other


@dataclass(frozen=True, repr=False)
class PathCheck(_Receiver):
    authorizer: Authorizer
    path: str
    type_name = "kubernetes.authorization.PathCheck"


@dataclass(frozen=True, repr=False)
class GroupCheck(_Receiver):
    authorizer: Authorizer
    group: str
    type_name = "kubernetes.authorization.GroupCheck"


@dataclass(frozen=True, repr=False)
class ResourceCheck(_Receiver):
    authorizer: Authorizer
    group: str
    resource: str
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    type_name = "kubernetes.authorization.ResourceCheck"


@dataclass(frozen=True, repr=False)
class Decision(_Receiver):
    verdict: Verdict
    type_name = "kubernetes.authorization.Decision"


def authorizer_for(subject: Subject, authorize: Authorize, group: str = "", resource: str = "",
                   subresource: str = "", namespace: str = "", name: str = "") -> Authorizer:
    """The `authorizer` variable of one request, its `requestResource` the request's own resource."""
    value = Authorizer(subject, authorize)
    if resource:
        own = ResourceCheck(value, group, resource, subresource, namespace, name)
        value[celtypes.StringType("requestResource")] = own
    return value


# ---- the functions -----------------------------------------------------------------------------
def _error(message: str) -> CELEvalError:
    return CELEvalError(message, ValueError, None)


def _type_name(value) -> str:
    """cel-go's name of a value's type: `int`, `string`, `kubernetes.authorization.Decision`…"""
    return getattr(value, "type_name", "") or type(value).__name__.removesuffix("Type").lower()


def _no_overload(name: str, *args) -> CELEvalError:
    shown = ", ".join(_type_name(a) for a in args)
    return CELEvalError(f"found no matching overload for '{name}' applied to '({shown})'", TypeError, None)


def path(authz, p):
    if not isinstance(authz, Authorizer) or not isinstance(p, str):
        return _no_overload("path", authz, p)
    if not p.strip():
        return _error("path must not be empty")
    return PathCheck(authz, str(p))


def group(authz, g):
    if not isinstance(authz, Authorizer) or not isinstance(g, str):
        return _no_overload("group", authz, g)
    return GroupCheck(authz, str(g))


def service_account(authz, namespace, name):
    if not isinstance(authz, Authorizer) or not isinstance(namespace, str) or not isinstance(name, str):
        return _no_overload("serviceAccount", authz, namespace, name)
    if subdomain_errors(str(name)):
        return _error("Invalid service account name")
    if label_errors(str(namespace)):
        return _error("Invalid service account namespace")
    return Authorizer(Subject.service_account(str(namespace), str(name)), authz.authorize)


def resource(check, r):
    if not isinstance(check, GroupCheck) or not isinstance(r, str):
        return _no_overload("resource", check, r)
    if not r.strip():
        return _error("resource must not be empty")
    return ResourceCheck(check.authorizer, check.group, str(r))


def _setter(field: str) -> Callable:
    def set_field(check, value):
        if not isinstance(check, ResourceCheck) or not isinstance(value, str):
            return _no_overload(field, check, value)
        return replace(check, **{field: str(value)})
    return set_field


def check(target, verb):
    if not isinstance(verb, str) or not isinstance(target, (PathCheck, ResourceCheck)):
        return _no_overload("check", target, verb)
    charge(CHECK_STEPS)
    authz = target.authorizer
    if isinstance(target, PathCheck):
        ask = Ask(authz.subject, str(verb), path=target.path)
    else:
        ask = Ask(authz.subject, str(verb), target.group, target.resource, target.subresource, target.namespace,
                  target.name)
    return Decision(authz.authorize(ask))


def _decision(name: str, read: Callable[[Verdict], object]) -> Callable:
    def answer(decision):
        if not isinstance(decision, Decision):
            return _no_overload(name, decision)
        return read(decision.verdict)
    return answer


FUNCTIONS = {
    "path": path, "group": group, "serviceAccount": service_account, "resource": resource,
    "subresource": _setter("subresource"), "namespace": _setter("namespace"), "name": _setter("name"),
    "check": check,
    "allowed": _decision("allowed", lambda v: celtypes.BoolType(v.allowed)),
    "reason": _decision("reason", lambda v: celtypes.StringType(v.reason)),
    "errored": _decision("errored", lambda v: celtypes.BoolType(bool(v.error))),
    "error": _decision("error", lambda v: celtypes.StringType(v.error)),
}

RESULTS = {"path": PathCheck.type_name, "group": GroupCheck.type_name, "serviceAccount": Authorizer.type_name,
           "resource": ResourceCheck.type_name, "subresource": ResourceCheck.type_name,
           "namespace": ResourceCheck.type_name, "name": ResourceCheck.type_name, "check": Decision.type_name,
           "allowed": "bool", "errored": "bool", "reason": "string", "error": "string"}


def result_type(tree: lark.Tree) -> str | None:
    """The type an expression whose outermost step is one of these methods has (cel-go knows it; the
    untyped checker says dyn): `authorizer.path('/x').check('get')` is a Decision, not a bool."""
    node = tree
    while isinstance(node, lark.Tree) and len(node.children) == 1 and isinstance(node.children[0], lark.Tree):
        node = node.children[0]
    if isinstance(node, lark.Tree) and node.data == "member_dot_arg":
        return RESULTS.get(str(node.children[1]))
    return None
