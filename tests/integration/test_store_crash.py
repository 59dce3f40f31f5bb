"""kill -9 of the store under a stream of writes: every answered write survives, every committed
change reaches watchers, a retried request gets its first reply; a standby takes over."""
from __future__ import annotations

import threading
import uuid

from runtime.client import Client
from tests.conftest import wait_serving
from testkit.waiting import wait_until
from tests.integration.test_crud import pod
from tests.integration.test_watch import drain


class Writer(threading.Thread):
    """Creates pods one after another, remembering each request's id and reply."""

    def __init__(self, client: Client, prefix: str, count: int):
        super().__init__(daemon=True)
        self.client, self.prefix, self.count = client, prefix, count
        self.results: list[tuple[str, str, dict | Exception]] = []  # (name, message id, reply)

    def run(self) -> None:
        for i in range(self.count):
            name, mid = f"{self.prefix}-{i}", uuid.uuid4().hex
            reply = self.client.request_async("create", "Pod", namespace="default", obj=pod(name),
                                              message_id=mid, timeout=4).result(30)
            self.results.append((name, mid, reply))

    def answered(self) -> dict[str, dict]:
        return {n: r["object"] for n, _, r in self.results if isinstance(r, dict) and r.get("ok")}


def _start_writers(client: Client, n: int, count: int) -> list[Writer]:
    writers = [Writer(client, f"w{k}", count) for k in range(n)]
    for w in writers:
        w.start()
    return writers


def _answered(writers: list[Writer]) -> dict[str, dict]:
    return {k: v for w in writers for k, v in w.answered().items()}


def _check_nothing_lost(client: Client, writers: list[Writer], watch) -> None:
    answered = _answered(writers)
    stored = {p["metadata"]["name"]: p for p in client.list("Pod", "default").items}
    assert set(answered) <= set(stored), set(answered) - set(stored)
    for name, obj in answered.items():
        assert stored[name]["metadata"]["uid"] == obj["metadata"]["uid"]
    seen = drain(watch, lambda s: {d.object["metadata"]["name"] for d in s} >= set(stored), timeout=30)
    assert {d.object["metadata"]["name"] for d in seen} >= set(stored)


def _retry_everything_with_the_same_ids(client: Client, writers: list[Writer]) -> None:
    """A retry with the first request's id gets the first reply: never AlreadyExists, same uid."""
    stored = {p["metadata"]["name"]: p for p in client.list("Pod", "default").items}
    for w in writers:
        for name, mid, first in w.results:
            again = client.request_async("create", "Pod", namespace="default", obj=pod(name), message_id=mid,
                                         timeout=10).result(30)
            assert isinstance(again, dict), again
            if name in stored:
                assert again["ok"], again
                assert again["object"]["metadata"]["uid"] == stored[name]["metadata"]["uid"]
            if isinstance(first, dict):
                assert again == first


def test_kill_store_under_writes_loses_nothing(procs, settings):
    store = procs.start("store")
    procs.start("actors.apiserver")
    client = Client(settings, name="writer")
    wait_serving(client)
    watch = client.watch("Pod", "default").wait_synced()
    writers = _start_writers(client, 8, 60)
    wait_until(lambda: len(_answered(writers)) >= 150, 60, what="writes before the crash")
    procs.kill9(store)
    procs.start("store")
    for w in writers:
        w.join(120)
    assert len(_answered(writers)) > 150  # writes went on after the restart
    _check_nothing_lost(client, writers, watch)
    _retry_everything_with_the_same_ids(client, writers)
    client.close()


def test_standby_takes_over_without_losing_a_write(procs, settings):
    active = procs.start("store", label="store-a")
    client = Client(settings, name="writer")
    procs.start("actors.apiserver")
    wait_serving(client)
    standby = procs.start("store", label="store-b")
    standby_log = procs.logdir / "store-b-2.log"
    wait_until(lambda: "actor.standby" in standby_log.read_text(), what="the second store to wait as standby")
    watch = client.watch("Pod", "default").wait_synced()
    writers = _start_writers(client, 4, 50)
    wait_until(lambda: len(_answered(writers)) >= 60, 60, what="writes before the crash")
    assert "store.active" not in standby_log.read_text()  # idle while the first one lives
    procs.kill9(active)
    for w in writers:
        w.join(120)
    assert "store.active" in standby_log.read_text()
    assert standby.poll() is None
    assert len(_answered(writers)) > 60
    _check_nothing_lost(client, writers, watch)
    client.close()


def test_requests_wait_in_their_queues_until_the_actors_start(procs, settings):
    client = Client(settings, name="early")
    future = client.request_async("create", "Namespace", obj={"kind": "Namespace", "metadata": {"name": "early"}},
                                  timeout=30)
    procs.start("actors.apiserver")
    procs.start("store")
    reply = future.result(60)
    assert isinstance(reply, dict) and reply["ok"], reply
    client.close()
