"""Authorization of a request: the union kube-apiserver runs, in order (system:masters, the node
authorizer `node.py`, RBAC over the apiserver's cache `rbac.py`), memoized until the next RBAC change —
most requests repeat a few (user, verb, resource, namespace) shapes, and a walk of every binding is
not free. What is allowed for every name is asked once, not once per object. `forbidden` is the 403
a denied request gets."""
from __future__ import annotations

from dataclasses import replace

from actors.apiserver.authz.node import NODES_GROUP, node_authorize
from actors.apiserver.authz.rbac import PRIVILEGED_GROUP, RbacSource, rbac_authorize
from actors.apiserver.authz.rules import Attributes, Decision
from api.gojson import go_quote
from api.status import StatusError

MEMO_LIMIT = 20_000
ALLOWED = Decision(True)


class Authorizer:
    def __init__(self, cache):
        self.cache = cache
        self.memo: dict[Attributes, Decision] = {}
        self.generation = -1

    def decide(self, attrs: Attributes) -> Decision:
        if PRIVILEGED_GROUP in attrs.user.groups:  # the superuser authorizer comes first, and needs no memo
            return ALLOWED
        if self.generation != self.cache.rbac_generation or len(self.memo) > MEMO_LIMIT:
            self.memo.clear()
            self.generation = self.cache.rbac_generation
        if attrs.name and NODES_GROUP not in attrs.user.groups:  # a node's answers depend on the name
            anyone = self._memoized(replace(attrs, name=""))  # a rule without resourceNames: every name
            if anyone.allowed:
                return anyone
        return self._memoized(attrs)

    def _memoized(self, attrs: Attributes) -> Decision:
        decision = self.memo.get(attrs)
        if decision is None:
            decision = self.memo[attrs] = authorize(attrs, self.cache)
        return decision

    def allowed(self, attrs: Attributes) -> bool:
        return self.decide(attrs).allowed

    def check(self, attrs: list[Attributes]) -> Decision:
        """The decision for the request (the last one's, carrying a node guard if any), or the 403
        of the first attribute set that is not allowed."""
        decision = Decision(True)
        for one in attrs:
            decision = self.decide(one)
            if not decision.allowed:
                raise forbidden(one, decision.reason)
        return decision


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
