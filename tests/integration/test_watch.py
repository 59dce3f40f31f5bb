"""Watchers see every change in revision order; a consumer that loses events (its queue purged
or deleted) repairs its cache by resync and its handler sees exactly the missing changes."""
from __future__ import annotations

import queue
import threading

import pytest

from runtime.cache import Delta
from runtime.client import Client, Watch
from bus.testkit import blocking
from testkit.waiting import wait_until
from tests.integration.test_crud import pod

pytestmark = pytest.mark.shared_plane  # one control plane for the module, a namespace per test
# The loss takes the key's last bookmark with it (it follows the changes by up to 0.5 s); the store's
# slow sweep of every key then tells of the gap: every 4 s here rather than every 60 s.
PLANE_ENV = {"KUBUS_BOOKMARK_SWEEP_S": "4"}


def drain(watch: Watch, until, timeout: float = 20.0) -> list[Delta]:
    """Deltas until `until(seen)` holds."""
    seen: list[Delta] = []
    wait_until(lambda: _take(watch, seen) or until(seen), timeout, what="the watcher to see the changes")
    return seen


def _take(watch: Watch, seen: list[Delta]) -> bool:
    try:
        while True:
            seen.append(watch.next(timeout=0))
    except queue.Empty:
        return False


def test_watcher_sees_every_change_in_revision_order(cluster):
    watch = cluster.watch("Pod", cluster.namespace).wait_synced()
    for i in range(30):
        cluster.create(pod(f"w-{i}"))
    for i in range(0, 30, 3):
        cluster.patch("Pod", f"w-{i}", {"metadata": {"labels": {"step": "two"}}})
    for i in range(0, 30, 5):
        cluster.delete("Pod", f"w-{i}")
    seen = drain(watch, lambda s: len(s) >= 30 + 10 + 6)
    assert [d.rev for d in seen] == sorted(d.rev for d in seen)
    assert len({d.rev for d in seen}) == len(seen) == 46
    assert [d.type for d in seen].count("DELETED") == 6
    assert not any(d.synthetic for d in seen)


class GatedWatch(Watch):
    """A watch whose handler can be held, so events pile up in its queue (prefetch 1)."""

    def __init__(self, client, spec):
        self.gate = threading.Event()
        self.gate.set()
        super().__init__(client, spec, prefetch=1)

    def on_delta(self, delta: Delta) -> None:
        self.gate.wait(30)
        super().on_delta(delta)


def _lossy_window(cluster, amqp_url, lose) -> tuple[list[Delta], GatedWatch]:
    """Pods a0..a4 known; while the handler is held, change a1 a2, delete a3, create a5, then lose
    what is queued (`lose(channel, queue)`): the four changes and the bookmark after them. Returns the
    deltas after release."""
    names = [f"a{i}" for i in range(5)]
    for n in names:
        cluster.create(pod(n))
    watcher = Client(cluster.settings, name="watcher")  # its thread blocks in the handler, not the writer's
    spec = watcher.watch_queue([f"pod.{cluster.namespace}.*"], name=f"lossy-{cluster.namespace}")
    watch = GatedWatch(watcher, spec).wait_synced()
    drain(watch, lambda s: len(s) >= 5)
    watch.gate.clear()
    cluster.patch("Pod", "a0", {"metadata": {"labels": {"seen": "held"}}})  # delivered, held by the handler
    cluster.patch("Pod", "a1", {"metadata": {"labels": {"v": "2"}}})
    cluster.patch("Pod", "a2", {"metadata": {"labels": {"v": "2"}}})
    cluster.delete("Pod", "a3")
    cluster.create(pod("a5"))
    conn = blocking(amqp_url)
    wait_until(lambda: conn.channel().queue_declare(spec.name, passive=True).method.message_count >= 5,
               what="the changes and a bookmark to pile up in the queue")
    lose(conn.channel(), spec.name)
    conn.close()
    watch.gate.set()
    return drain(watch, lambda s: any(d.type == "ADDED" and d.object["metadata"]["name"] == "a5" for d in s)), watch


def _assert_exactly_the_missing_changes(deltas: list[Delta], cluster) -> None:
    by_name = {(d.type, d.object["metadata"]["name"]) for d in deltas}
    assert ("MODIFIED", "a0") in by_name  # the one delivered before the loss
    missing = {d for d in by_name if d[1] != "a0"}
    assert missing == {("MODIFIED", "a1"), ("MODIFIED", "a2"), ("DELETED", "a3"), ("ADDED", "a5")}
    assert all(d.synthetic for d in deltas if d.object["metadata"]["name"] != "a0")
    assert [d for d in deltas if d.type == "DELETED"][0].tombstone


def test_purged_queue_is_repaired_by_resync(cluster, amqp_url):
    deltas, watch = _lossy_window(cluster, amqp_url, lambda ch, q: ch.queue_purge(q))
    _assert_exactly_the_missing_changes(deltas, cluster)
    assert watch.informer.resyncs >= 1
    cluster.create(pod("after"))  # and the stream goes on
    later = drain(watch, lambda s: any(d.object["metadata"]["name"] == "after" for d in s))
    assert later[-1].type == "ADDED" and not later[-1].synthetic
    watch.client.close()


def test_deleted_queue_is_redeclared_and_repaired(cluster, amqp_url):
    deltas, watch = _lossy_window(cluster, amqp_url, lambda ch, q: ch.queue_delete(q))
    _assert_exactly_the_missing_changes(deltas, cluster)
    cluster.create(pod("after"))
    drain(watch, lambda s: any(d.object["metadata"]["name"] == "after" for d in s))
    watch.client.close()
