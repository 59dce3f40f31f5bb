"""Which watch cache serves a watch in a namespace from a list's resourceVersion: the person's own of
that namespace when it reaches back to it, else their cache of every namespace when that one does."""
from types import SimpleNamespace

import pytest

from actors.gateway.clients import ClientPool
from api.registry import lookup
from config.settings import Settings

PODS, NODES = lookup("Pod"), lookup("Node")


def _cache(horizon: int, failed=None, synced=True):
    return SimpleNamespace(horizon=horizon, failed=failed, synced=SimpleNamespace(done=lambda: synced), last_used=0)


@pytest.mark.parametrize("own, wide, since, serves", [
    (None, _cache(10), 12, "wide"),  # listed across namespaces at 12, first watch in one
    (_cache(15), _cache(10), 12, "wide"),  # the namespace's cache started after the list
    (_cache(10), _cache(5), 12, None),  # its own reaches back: its own
    (None, _cache(20), 12, None),  # neither reaches back: 410 from its own, as before
    (None, _cache(10, failed=RuntimeError("x")), 12, None),
    (None, _cache(10, synced=False), 12, None),
    (None, None, 12, None),
])
def test_a_namespaced_watch_uses_the_wide_cache_only_where_it_reaches_back(own, wide, since, serves):
    pool, client = ClientPool(Settings()), object()
    if own is not None:
        pool._caches[(id(client), "Pod", "shop")] = own
    if wide is not None:
        pool._caches[(id(client), "Pod", None)] = wide
    assert pool.covering(client, PODS, "shop", since) is (wide if serves == "wide" else None)


def test_a_cluster_scoped_kind_or_a_watch_of_every_namespace_needs_none():
    pool, client = ClientPool(Settings()), object()
    pool._caches[(id(client), "Node", None)] = _cache(1)
    assert pool.covering(client, NODES, None, 5) is None
    assert pool.covering(client, PODS, None, 5) is None
