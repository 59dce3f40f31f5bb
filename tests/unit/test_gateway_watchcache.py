"""The gateway's watch cache, pure logic: the window a watch resumes from, 410 for a version older
than it, selector transitions as kube-apiserver's cacher reports them, a resync ending watches."""
from __future__ import annotations

import asyncio

import pytest

from actors.gateway import watchcache
from actors.gateway.watch import matcher
from api.registry import lookup
from api.status import StatusError
from runtime.cache import Delta


class Feed:
    rev = 0

    def close(self) -> None:
        pass


class FakeClient:
    def watch(self, *args, **kw) -> Feed:
        return Feed()


def pod(name: str, rev: int, **labels: str) -> dict:
    return {"metadata": {"name": name, "namespace": "default", "resourceVersion": str(rev), "labels": labels}}


def cache_at(rev: int, *objects: dict) -> watchcache.KindCache:
    cache = watchcache.KindCache(FakeClient(), lookup("Pod"), "default", asyncio.new_event_loop())
    for obj in objects:
        cache._apply(Delta("ADDED", "Pod", obj, int(obj["metadata"]["resourceVersion"]), synthetic=True))
    cache._synced(rev)
    return cache


def change(cache, kind: str, obj: dict) -> None:
    cache._apply(Delta(kind, "Pod", obj, int(obj["metadata"]["resourceVersion"])))


def drained(watcher) -> list[tuple[str, str, str]]:
    out = []
    while not watcher.queue.empty():
        kind, obj = watcher.queue.get_nowait()
        out.append((kind, obj["metadata"]["name"], obj["metadata"]["resourceVersion"]))
    return out


def test_a_watch_without_a_version_starts_with_every_object_as_added():
    cache = cache_at(5, pod("b", 4), pod("a", 3))
    watcher, first = cache.subscribe(None, matcher(None, None))
    assert [(kind, obj["metadata"]["name"]) for kind, obj in first] == [("ADDED", "a"), ("ADDED", "b")]
    change(cache, "MODIFIED", pod("a", 6))
    assert drained(watcher) == [("MODIFIED", "a", "6")]


def test_a_watch_resumes_after_its_version_from_the_window():
    cache = cache_at(5)
    change(cache, "ADDED", pod("a", 6))
    change(cache, "MODIFIED", pod("a", 7))
    change(cache, "DELETED", pod("a", 8))
    _, first = cache.subscribe(6, matcher(None, None))
    assert [(kind, obj["metadata"]["resourceVersion"]) for kind, obj in first] == [("MODIFIED", "7"), ("DELETED", "8")]


def test_a_version_older_than_the_window_is_expired(monkeypatch):
    monkeypatch.setattr(watchcache, "WINDOW", 2)
    cache = cache_at(5)
    for rev in (6, 7, 8):
        change(cache, "ADDED", pod(f"p{rev}", rev))
    with pytest.raises(StatusError) as refused:
        cache.subscribe(5, matcher(None, None))
    assert (refused.value.code, refused.value.reason) == (410, "Expired")
    assert refused.value.message == "too old resource version: 5 (6)"
    assert len(cache.subscribe(6, matcher(None, None))[1]) == 2


def test_leaving_and_entering_a_selector_are_deleted_and_added():
    cache = cache_at(5, pod("a", 5, app="web"))
    watcher, _ = cache.subscribe(5, matcher("app=web", None))
    change(cache, "MODIFIED", pod("a", 6, app="db"))
    change(cache, "MODIFIED", pod("a", 7, app="db", tier="x"))
    change(cache, "MODIFIED", pod("a", 8, app="web"))
    events = drained(watcher)
    assert events == [("DELETED", "a", "6"), ("ADDED", "a", "8")]


def test_the_deleted_event_of_a_selector_exit_carries_the_last_matching_state():
    cache = cache_at(5, pod("a", 5, app="web"))
    watcher, _ = cache.subscribe(5, matcher("app=web", None))
    change(cache, "MODIFIED", pod("a", 6, app="db"))
    _, obj = watcher.queue.get_nowait()
    assert obj["metadata"]["labels"] == {"app": "web"} and obj["metadata"]["resourceVersion"] == "6"


def test_a_resync_ends_every_watch_with_expired():
    cache = cache_at(5, pod("a", 5))
    watcher, _ = cache.subscribe(5, matcher(None, None))
    cache._apply(Delta("MODIFIED", "Pod", pod("a", 20), 20, synthetic=True))
    kind, error = watcher.queue.get_nowait()
    assert kind == "ERROR" and error.code == 410
    assert not cache.watchers and cache.horizon == 20 and cache.subscribe(20, matcher(None, None))[1] == []


def test_field_selectors_compare_booleans_as_text():
    match = matcher(None, "spec.unschedulable=true,metadata.name!=x")
    assert match({"metadata": {"name": "n"}, "spec": {"unschedulable": True}})
    assert not match({"metadata": {"name": "x"}, "spec": {"unschedulable": True}})
    assert not match({"metadata": {"name": "n"}, "spec": {}})
