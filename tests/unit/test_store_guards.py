"""The store's guards as pure logic: fencing, the dedupe budget, the outbox that cannot wedge,
bookmarks for keys that became empty."""
from __future__ import annotations

import msgpack
import pytest

from api.status import StatusError

from bus.digest import KeyDigest
from store.backend import Applied, Fenced
from store import bookmarks
from store.bookmarks import EMPTY_KEY_RETENTION_S, BookmarkKeys
from store.dedupe import Dedupe
from store.outbox import MAX_STRIKES, Outbox
from store.sqlite import SqliteBackend
from store.state import State


def test_a_store_whose_database_was_claimed_by_another_cannot_write(tmp_path):
    old, new = SqliteBackend(tmp_path / "db"), SqliteBackend(tmp_path / "db")
    state = State(lambda: 0.0)
    state.seed_namespaces()
    old.claim()
    old.commit(state.take_changes()[:1], [b"e"], [], 0)
    new.claim()  # the standby took over
    state.create("Namespace", None, {"metadata": {"name": "late"}})
    with pytest.raises(Fenced):
        old.commit(state.take_changes(), [b"e"], [], 0)
    with pytest.raises(Fenced):
        old.compact(0, 0.0)
    assert new.load()[0] == 1  # only the write made before the takeover
    new.commit([], [], [Applied("u\nid", 1.0, b"r")], 0)  # the new claimant writes


def test_dedupe_keeps_the_newest_replies_within_its_byte_budget():
    dedupe = Dedupe(max_bytes=10_000)
    for i in range(100):
        dedupe.add(Applied(f"u\n{i}", float(i), b"x" * 500))
    assert dedupe.bytes <= 10_000
    assert dedupe.get("u\n99") is not None and dedupe.get("u\n0") is None
    assert dedupe.get(None) is None
    assert dedupe.expire(horizon=98.5) == 99.0
    assert list(dedupe.entries) == ["u\n99"]


def test_a_reply_applied_again_counts_once_and_is_the_newest():
    """The window forgot an id, a retry applied it again: the database holds it twice, and loading
    it back keeps one, at its later place."""
    dedupe = Dedupe(max_bytes=10_000)
    dedupe.load([Applied("a", 1.0, b"x" * 100), Applied("b", 2.0, b""), Applied("a", 3.0, b"y" * 100)])
    assert list(dedupe.entries) == ["b", "a"] and dedupe.get("a").reply == b"y" * 100
    assert dedupe.bytes == (1 + 64) + (1 + 100 + 64)


class FakeBus:
    """Confirms are handed back by the test; `publish` may raise."""

    user = "t-store"

    def __init__(self):
        self.channel = object()
        self.confirms = []

    def publish(self, exchange, key, raw, **kw):
        if b"boom" in raw:
            raise ValueError("frame too large")
        self.confirms.append(kw["on_confirm"])
        return True


def _outbox(bus):
    skipped = []
    box = Outbox(bus, "events", 0, max_bytes=100, skip=lambda rev, key, raw, why: skipped.append((rev, why)))
    return box, skipped


def test_an_event_the_broker_keeps_refusing_is_skipped_not_retried_forever():
    bus = FakeBus()
    box, skipped = _outbox(bus)
    for strike in range(MAX_STRIKES):
        box.restart([_Row(1)])
        bus.confirms.pop()(False)  # nacked with the channel still open
    assert skipped and skipped[0][0] == 1 and box.confirmed == 1 and box.caught_up(1)


def test_a_lost_channel_is_no_strike():
    bus = FakeBus()
    box, skipped = _outbox(bus)
    for _ in range(MAX_STRIKES + 2):
        box.restart([_Row(1)])
        bus.channel = None
        bus.confirms.pop()(False)
        bus.channel = object()
    assert not skipped and box.confirmed == 0 and box.failed


@pytest.mark.parametrize("raw", [
    pytest.param(b"boom", id="publish-raises"),
    pytest.param(b"x" * 101, id="over-the-message-limit"),
])
def test_an_unpublishable_event_is_skipped_at_once(raw):
    bus = FakeBus()
    box, skipped = _outbox(bus)
    box.publish_all([(1, "pod.a.-", None, raw)])
    box.publish_all([(2, "pod.a.-", None, b"ok")])
    assert [rev for rev, _ in skipped] == [1]
    bus.confirms[-1](True)
    assert box.confirmed == 2


class _Row:
    def __init__(self, rev):
        self.rev, self.key, self.from_key, self.event = rev, "pod.a.-", None, b"e"


def test_a_key_that_became_empty_keeps_its_bookmark_on_the_sweep():
    keys, digests = BookmarkKeys(), {"pod.a.-": KeyDigest()}
    digests["pod.a.-"].add("uid", 1)
    digests["pod.a.-"].remove("uid", 1)  # its last object went
    keys.mark("pod.a.-")
    assert [(k, d.count) for k, d in keys.take(digests, now=0.0)] == [("pod.a.-", 0)]
    for now in (60.0, 120.0):
        keys.sweep(digests, now)
        assert [(k, d.count) for k, d in keys.take(digests, now)] == [("pod.a.-", 0)]
    keys.sweep(digests, EMPTY_KEY_RETENTION_S + 1)
    assert keys.take(digests, EMPTY_KEY_RETENTION_S + 1) == []


def test_events_go_out_in_runs_that_share_key_and_from():
    """(k1, k2, k1) is three messages, so every queue receives revisions in order."""
    bus = FakeBus()
    bus.bodies = []
    publish = bus.publish
    bus.publish = lambda exchange, key, raw, **kw: (bus.bodies.append((key, kw.get("cc"), msgpack.unpackb(raw))),
                                                    publish(exchange, key, raw, **kw))[1]
    box, _ = _outbox(bus)
    box.max_bytes = 1 << 20
    events = [(1, "k1", None, b"\x01"), (2, "k1", None, b"\x02"), (3, "k2", None, b"\x03"), (4, "k1", None, b"\x04"),
              (5, "k1", "k0", b"\x05")]
    box.publish_all(events)
    assert bus.bodies == [("k1", None, [1, 2]), ("k2", None, [3]), ("k1", None, [4]), ("k1", ["k0"], [5])]
    for confirm in reversed(bus.confirms):
        confirm(True)
    assert box.confirmed == 5


def _pod_on(state: State, node: str) -> None:
    state.create("Pod", "default", {"metadata": {"name": "p", "namespace": "default"},
                                    "spec": {"nodeName": node, "containers": [{"name": "c", "image": "i"}]}})


@pytest.mark.parametrize("node, ok", [pytest.param("node-1", True, id="own-pod"),
                                      pytest.param("node-2", False, id="pod-bound-elsewhere")])
def test_a_guarded_command_needs_the_pod_bound_to_the_guards_node(node, ok):
    from bus.messages import parse_request
    from store.commands import execute

    state = State(lambda: 0.0)
    state.seed_namespaces()
    _pod_on(state, "node-1")
    message = f'node "{node}" can only update pod status for pods with spec.nodeName set to itself'
    req = parse_request({"verb": "updateStatus", "kind": "Pod", "namespace": "default", "name": "p",
                         "object": {"metadata": {"name": "p"}, "status": {"phase": "Running"}},
                         "guard": {"nodeName": node, "message": message}})
    reply = msgpack.unpackb(execute(state, req, 1 << 20)[0])
    assert reply["ok"] is ok
    if not ok:
        assert reply["status"]["code"] == 403 and reply["status"]["message"] == message


def test_admission_warnings_come_back_with_the_answer():
    from bus.messages import parse_request
    from store.commands import execute

    state = State(lambda: 0.0)
    state.seed_namespaces()
    req = parse_request({"verb": "create", "kind": "Namespace", "object": {"metadata": {"name": "w"}},
                         "warnings": ['would violate PodSecurity "restricted:latest": host namespaces']})
    reply = msgpack.unpackb(execute(state, req, 1 << 20)[0])
    assert reply["ok"] and reply["warnings"] == ['would violate PodSecurity "restricted:latest": host namespaces']


def test_a_replaced_pod_keeps_what_admission_gave_it():
    """A replace that leaves out the pod's ServiceAccount and priority keeps them (Kubernetes'
    Priority admission keeps the old values on update) rather than failing as a spec change."""
    state = State(lambda: 0.0)
    state.seed_namespaces()
    admitted = {"serviceAccountName": "default", "priority": 0, "preemptionPolicy": "PreemptLowerPriority"}
    stored = state.create("Pod", "default", {"metadata": {"name": "p", "namespace": "default"},
                                             "spec": {"containers": [{"name": "c", "image": "i"}], **admitted}}).obj
    replaced = state.update("Pod", "default", {"metadata": {"name": "p", "namespace": "default", "labels": {"a": "b"}},
                                               "spec": {"containers": [{"name": "c", "image": "i"}]}},
                            stored["metadata"]["resourceVersion"]).obj
    assert {k: replaced["spec"][k] for k in admitted} == admitted and replaced["metadata"]["labels"] == {"a": "b"}


def test_a_create_charges_the_namespaces_quotas_in_its_own_commit_or_is_refused():
    """The store is the one writer: the object and its quotas' usage change together, so no two
    apiservers can pass a limit between them."""
    state = State(lambda: 0.0)
    state.seed_namespaces()
    state.create("ResourceQuota", "default", {"metadata": {"name": "q", "namespace": "default"},
                                              "spec": {"hard": {"pods": "1"}},
                                              "status": {"hard": {"pods": "1"}, "used": {"pods": "0"}}})
    state.take_changes()
    state.create("Pod", "default", {"metadata": {"name": "a", "namespace": "default"},
                                    "spec": {"containers": [{"name": "c", "image": "i"}]}})
    assert [(c.type, c.kind) for c in state.take_changes()] == [("ADDED", "Pod"), ("MODIFIED", "ResourceQuota")]
    assert state.get("ResourceQuota", "default", "q").obj["status"]["used"] == {"pods": "1"}
    with pytest.raises(StatusError) as refused:
        state.create("Pod", "default", {"metadata": {"name": "b", "namespace": "default"},
                                        "spec": {"containers": [{"name": "c", "image": "i"}]}})
    assert refused.value.message == 'pods "b" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, ' \
                                    'limited: pods=1'
    assert state.take_changes() == []


def test_the_periodic_sweep_is_spread_over_its_takes():
    """Not every key's bookmark in one burst; all of them within the takes, each once."""
    keys, digests = BookmarkKeys(), {}
    for i in range(10):
        digests[f"pod.a.n{i}"] = KeyDigest()
        digests[f"pod.a.n{i}"].add(f"uid{i}", 1)
    keys.sweep(digests, 0.0, takes=4)
    taken = [[k for k, _ in keys.take(digests, 0.0)] for _ in range(5)]
    assert [len(t) for t in taken] == [3, 3, 3, 1, 0]
    assert sorted(k for t in taken for k in t) == sorted(digests)


def test_a_take_holds_at_most_its_share_changed_keys_first_and_oldest_first(monkeypatch):
    """A store's activation marks every key: they go out a share at a time, not in one burst."""
    monkeypatch.setattr(bookmarks, "MAX_PER_TAKE", 3)
    keys, digests = BookmarkKeys(), {}
    for i in range(5):
        digests[f"pod.a.n{i}"] = KeyDigest()
        digests[f"pod.a.n{i}"].add(f"uid{i}", 1)
        keys.mark(f"pod.a.n{i}")
    keys.sweep(digests, 0.0)
    keys.mark("pod.a.n0")  # changed again: keeps its place
    assert [k for k, _ in keys.take(digests, 0.0)] == ["pod.a.n0", "pod.a.n1", "pod.a.n2"]
    taken = [[k for k, _ in keys.take(digests, 0.0)] for _ in range(3)]
    assert taken == [["pod.a.n3", "pod.a.n4"], ["pod.a.n1", "pod.a.n2", "pod.a.n3"], ["pod.a.n0"]]  # then the sweep
