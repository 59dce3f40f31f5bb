"""The local cache: duplicates dropped, gaps found by prev and by bookmark, resync diffs."""
import pytest
from structlog.testing import capture_logs

from bus.digest import KeyDigest
from bus.messages import Bookmark, Event
from runtime.cache import BadEvent, Cache, Gap, StaleSnapshot


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


def bookmark(shard, rev, *objs):
    digest = KeyDigest()
    for o in objs:
        digest.add(o["metadata"]["uid"], o["metadata"]["resourceVersion"])
    return Bookmark(type="BOOKMARK", kind="pod", shard=shard, rev=rev, count=digest.count, digest=digest.digest)


@pytest.fixture
def two_keys():
    """a on pod.ns.-, b on pod.ns.n1, loaded at 10."""
    c = Cache(["pod.ns.*"])
    c.replace([obj("a", 5), obj("b", 6, "n1")], 10)
    return c


def test_duplicates_are_judged_per_object(two_keys):
    assert [d.type for d in two_keys.apply(ev("MODIFIED", obj("a", 20), 5))] == ["MODIFIED"]
    # b's change at 15 is older than a's at 20, but news for b: a global counter would drop it
    assert [d.type for d in two_keys.apply(ev("MODIFIED", obj("b", 15, "n1"), 6))] == ["MODIFIED"]
    assert two_keys.apply(ev("MODIFIED", obj("b", 15, "n1"), 6)) == []


def test_a_replayed_create_after_its_delete_is_a_duplicate(two_keys):
    two_keys.apply(ev("ADDED", obj("x", 11), 0))
    assert [d.type for d in two_keys.apply(ev("DELETED", obj("x", 12), 11))] == ["DELETED"]
    assert two_keys.apply(ev("ADDED", obj("x", 11), 0)) == []  # the store republished from an older confirm
    assert [d.type for d in two_keys.apply(ev("ADDED", obj("x", 13, uid="u-x2"), 0))] == ["ADDED"]


def test_an_absurd_revision_blinds_neither_other_objects_nor_other_keys(two_keys):
    absurd = 10**15
    assert [d.type for d in two_keys.apply(ev("MODIFIED", obj("a", absurd), 5))] == ["MODIFIED"]
    assert [d.type for d in two_keys.apply(ev("MODIFIED", obj("b", 11, "n1"), 6))] == ["MODIFIED"]
    assert [d.type for d in two_keys.apply(ev("ADDED", obj("c", 12, "n1"), 0))] == ["ADDED"]
    two_keys.check(bookmark("pod.ns.n1", 13, obj("b", 11, "n1"), obj("c", 12, "n1")))  # agrees: no gap
    with pytest.raises(Gap):  # the bookmarks of b's key are still compared
        two_keys.check(bookmark("pod.ns.n1", 14, obj("b", 11, "n1")))


def test_bookmarks_older_than_their_keys_newest_change_say_nothing(two_keys):
    two_keys.apply(ev("ADDED", obj("c", 15, "n1"), 0))
    two_keys.check(bookmark("pod.ns.n1", 14, obj("b", 6, "n1")))  # cut before c came: ignored
    with pytest.raises(Gap):
        two_keys.check(bookmark("pod.ns.n1", 16, obj("b", 6, "n1")))


def test_a_departure_counts_as_a_change_of_the_key_it_left():
    c = Cache(["pod.ns.-"])
    c.replace([obj("a", 5), obj("z", 6)], 10)
    c.apply(ev("MODIFIED", obj("a", 11, "n1"), 5, from_="pod.ns.-"))
    c.check(bookmark("pod.ns.-", 10, obj("a", 5), obj("z", 6)))  # cut before a left: ignored
    c.check(bookmark("pod.ns.-", 11, obj("z", 6)))
    with pytest.raises(Gap):
        c.check(bookmark("pod.ns.-", 12, obj("a", 5), obj("z", 6)))


def test_an_empty_keys_bookmark_is_a_gap_for_a_cache_holding_objects_there(two_keys):
    two_keys.apply(ev("MODIFIED", obj("b", 10**15, "n1"), 6))  # an absurd revision on another key
    with pytest.raises(Gap):
        two_keys.check(Bookmark(type="BOOKMARK", kind="pod", shard="pod.ns.-", rev=30, count=0, digest=0))


def test_a_name_back_with_a_new_uid_is_deleted_then_added(cache):
    deltas = cache.replace([obj("a", 12, uid="u-a2"), obj("b", 6)], 12)
    assert [(d.type, d.object["metadata"]["uid"], d.tombstone) for d in deltas] == [
        ("DELETED", "u-a", True), ("ADDED", "u-a2", False)]
    assert cache.get("Pod", "ns", "a")["metadata"]["uid"] == "u-a2"


def test_replay_hands_every_object_as_added_and_what_vanished_as_deleted(cache):
    deltas = cache.replace([obj("a", 5), obj("c", 11)], 12, replay=True)
    assert sorted((d.type, d.object["metadata"]["name"]) for d in deltas) == [
        ("ADDED", "a"), ("ADDED", "c"), ("DELETED", "b")]


def test_a_revision_going_backwards_is_refused_once_then_believed_and_said_loudly():
    c = Cache(["pod.ns.*"])
    c.replace([obj("a", 400), obj("b", 450)], 500)
    with capture_logs() as logs:
        with pytest.raises(StaleSnapshot):
            c.replace([obj("a", 3)], 10)
        deltas = c.replace([obj("a", 3)], 10)
    assert (c.rev, c.floor) == (10, 10)
    assert sorted((d.type, d.object["metadata"]["name"]) for d in deltas) == [("DELETED", "b"), ("MODIFIED", "a")]
    backwards = [e for e in logs if e["event"] == "cache.revision_backwards"]
    assert [(e["log_level"], e["snapshot_rev"], e["cache_rev"], e["action"]) for e in backwards] == [
        ("error", 10, 500, "refused"), ("error", 10, 500, "accepted")]
    assert [d.type for d in c.apply(ev("ADDED", obj("n", 11), 0))] == ["ADDED"]  # and it goes on from there


BAD_OBJECTS = [
    pytest.param({"kind": "Pod"}, id="no-metadata"),
    pytest.param({"metadata": ["a"]}, id="metadata-a-list"),
    pytest.param({"metadata": {"namespace": "ns", "uid": "u", "resourceVersion": "11"}}, id="no-name"),
    pytest.param({"metadata": {"name": "a", "namespace": "ns", "resourceVersion": "11"}}, id="no-uid"),
    pytest.param({"metadata": {"name": "a", "namespace": "ns", "uid": "u", "resourceVersion": "eleven"}},
                 id="rv-not-a-number"),
    pytest.param({"metadata": {"name": "a", "namespace": 7, "uid": "u", "resourceVersion": "11"}},
                 id="namespace-a-number"),
    pytest.param({"metadata": {"name": "a", "namespace": "ns", "uid": "u", "resourceVersion": "11"},
                  "spec": "nodeName"}, id="spec-a-string"),
    pytest.param({"metadata": {"name": "a", "namespace": "ns", "uid": "u", "resourceVersion": "12"}},
                 id="rv-not-the-events-rev"),
]


@pytest.mark.parametrize("bad", BAD_OBJECTS)
def test_an_event_without_the_shape_of_an_object_leaves_the_cache_alone(cache, bad):
    before = (dict(cache.objects), cache.rev, dict(cache.key_revs))
    event = Event.model_validate({"type": "MODIFIED", "kind": "Pod", "rev": 11, "prev": 5, "object": bad})
    with pytest.raises(BadEvent):
        cache.apply(event)
    assert (dict(cache.objects), cache.rev, dict(cache.key_revs)) == before


def test_a_snapshot_skips_items_without_the_shape_of_an_object(cache):
    deltas = cache.replace([obj("a", 5), {"kind": "Pod"}, "junk", obj("c", 11)], 12)
    assert [(d.type, d.object["metadata"]["name"]) for d in deltas] == [("ADDED", "c"), ("DELETED", "b")]
