"""Authorization of a request: the union kube-apiserver runs (system:masters, the node authorizer,
RBAC over the apiserver's cache), memoized until the next RBAC change — most requests repeat a
few (user, verb, resource, namespace) shapes, and a walk of every binding is not free. What is
allowed for every name is asked once, not once per object."""
from __future__ import annotations

from dataclasses import replace

from api.authorization import Attributes, Decision, authorize, forbidden
from api.node_authorizer import NODES_GROUP

MEMO_LIMIT = 20_000
MASTERS = "system:masters"
ALLOWED = Decision(True)


class Authorizer:
    def __init__(self, cache):
        self.cache = cache
        self.memo: dict[Attributes, Decision] = {}
        self.generation = -1

    def decide(self, attrs: Attributes) -> Decision:
        if MASTERS in attrs.user.groups:  # the superuser authorizer comes first, and needs no memo
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
