"""Whom a caller believes a reply from (contract 2): a reply is believed only from the responder
it was asked of, told by its broker-validated `user_id` (every responder sets it on its replies, and
the broker refuses one that names another user).

| a call to | answered by |
|---|---|
| `{c}.api` | an apiserver, or the store it handed the command to (the store answers the caller itself) |
| `{c}.api`, verb `logs`, `exec`, `attach`, `portforward` | also a kubelet: the apiserver hands it to the pod's node (the caller knows not which) |
| `{c}.store`, `{c}.store.replica` | a store |
| `{c}.controller.metrics-server` (an apiserver's metrics read) | the metrics actor |
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

from config.identities import broker_user_of


@dataclass(frozen=True)
class Answerers:
    """Broker users by name, and any user whose name starts with one of `prefixes` (a role's users)."""

    users: frozenset[str]
    prefixes: tuple[str, ...] = ()

    def __contains__(self, user: object) -> bool:
        return isinstance(user, str) and (user in self.users or user.startswith(self.prefixes))


@functools.lru_cache(maxsize=64)
def store_answerers(cluster: str) -> Answerers:
    return Answerers(frozenset((broker_user_of(cluster, "store"),)))


@functools.lru_cache(maxsize=64)
def api_answerers(cluster: str, verb: str | None = None) -> Answerers:
    """Who answers a request to `{c}.api` of `verb`."""
    users = frozenset((broker_user_of(cluster, "apiserver"), broker_user_of(cluster, "store")))
    if verb not in ("logs", "exec", "attach", "portforward"):
        return Answerers(users)
    return Answerers(users | {broker_user_of(cluster, "hollow")}, (node_user_prefix(cluster),))


@functools.lru_cache(maxsize=64)
def metrics_answerers(cluster: str) -> Answerers:
    return Answerers(frozenset((broker_user_of(cluster, "controller", "metrics-server"),)))


def node_user_prefix(cluster: str) -> str:
    """What every node's kubelet user starts with, and no other user does."""
    return broker_user_of(cluster, "node", "x")[:-1]
