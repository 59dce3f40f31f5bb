"""The local cache: duplicates dropped, gaps found by prev and by bookmark, resync diffs."""
import pytest

from bus.digest import KeyDigest
from bus.messages import Bookmark, Event
from runtime.cache import Cache, Gap, StaleSnapshot


def obj(name, rv, node=None, uid=None):
    spec = {"nodeName": node} if node else {}
    return {"kind": "Pod", "metadata": {"name": name, "namespace": "ns", "uid": uid or f"u-{name}",
                                        "resourceVersion": str(rv)}, "spec": spec}


def ev(type_, o, prev, from_=None):
    body = {"type": type_, "kind": "Pod", "rev": int(o["metadata"]["resourceVersion"]), "prev": prev, "object": o}
    if from_:
        body["from"] = from_
    return Event.model_validate(body)


@pytest.fixture
def cache():
    c = Cache(["pod.ns.*"])
    c.replace([obj("a", 5), obj("b", 6)], 10)
    return c


def test_events_apply_and_duplicates_drop(cache):
    assert [d.type for d in cache.apply(ev("MODIFIED", obj("a", 11), 5))] == ["MODIFIED"]
    assert cache.apply(ev("MODIFIED", obj("a", 11), 5)) == []
    assert cache.apply(ev("ADDED", obj("z", 9), 0)) == []  # older than the snapshot


def test_prev_mismatch_is_a_gap(cache):
    with pytest.raises(Gap):
        cache.apply(ev("MODIFIED", obj("a", 12), 11))


def test_unknown_object_with_prev_is_a_gap_unless_it_entered_the_view():
    c = Cache(["pod.*.n1"])
    c.replace([], 10)
    with pytest.raises(Gap):
        c.apply(ev("MODIFIED", obj("x", 12, "n1"), 11))
    deltas = c.apply(ev("MODIFIED", obj("y", 13, "n1"), 11, from_="pod.ns.-"))
    assert [d.type for d in deltas] == ["ADDED"]


def test_leaving_the_view_is_deleted():
    c = Cache(["pod.ns.-"])
    c.replace([obj("a", 5)], 10)
    deltas = c.apply(ev("MODIFIED", obj("a", 11, "n1"), 5, from_="pod.ns.-"))
    assert [d.type for d in deltas] == ["DELETED"] and not c.objects


def test_bookmark_mismatch_is_a_gap(cache):
    digest = KeyDigest()
    digest.add("u-a", 5)
    digest.add("u-b", 6)
    cache.check(Bookmark(type="BOOKMARK", kind="pod", shard="pod.ns.-", rev=10, count=2, digest=digest.digest))
    with pytest.raises(Gap):
        cache.check(Bookmark(type="BOOKMARK", kind="pod", shard="pod.ns.-", rev=12, count=1, digest=1))
    cache.check(Bookmark(type="BOOKMARK", kind="pod", shard="pod.ns.-", rev=9, count=7, digest=1))  # too old


def test_resync_hands_over_exactly_the_difference(cache):
    deltas = cache.replace([obj("a", 5), obj("b", 8), obj("c", 9)], 12)
    assert sorted((d.type, d.object["metadata"]["name"]) for d in deltas) == [("ADDED", "c"), ("MODIFIED", "b")]
    deltas = cache.replace([obj("c", 9)], 13)
    assert sorted((d.type, d.object["metadata"]["name"], d.tombstone) for d in deltas) == [
        ("DELETED", "a", True), ("DELETED", "b", True)]
    with pytest.raises(StaleSnapshot):
        cache.replace([], 12)
