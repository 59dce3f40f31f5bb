"""The store's promises survive takeovers and lost connections: fencing of a frozen store, one
effect for a request whose answer was lost, bookmarks that repair a lost last deletion."""
from __future__ import annotations

import os
import signal
import sqlite3

import msgpack
import pytest

from runtime.client import Client
from tests.conftest import wait_serving
from bus.testkit import blocking
from testkit.waiting import wait_until
from tests.helpers import close_connections_of, management_answers


def _pod(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}


def test_a_frozen_store_cannot_write_after_the_standby_took_over(procs, settings):
    fast = {"KUBUS_HEARTBEAT_S": "2"}  # the broker gives up on a silent connection in seconds
    old = procs.start("store", label="store-a", **fast)
    client = Client(settings, name="writer")
    procs.start("actors.apiserver")
    wait_serving(client)
    new = procs.start("store", label="store-b", **fast)
    new_log, old_log = procs.logdir / "store-b-2.log", procs.logdir / "store-a-0.log"
    wait_until(lambda: "actor.standby" in new_log.read_text(), what="the second store to wait as standby")
    client.create(_pod("before"))
    os.kill(old.pid, signal.SIGSTOP)
    try:
        created = client.create(_pod("during"), timeout=60)  # reaches the frozen store's socket first
        assert "store.active" in new_log.read_text()
    finally:
        os.kill(old.pid, signal.SIGCONT)
    assert old.wait(30) == 75, old_log.read_text()[-2000:]
    assert "store.frozen" in old_log.read_text() or "store.fenced" in old_log.read_text()
    assert new.poll() is None
    pods = client.list("Pod").items
    assert [(p["metadata"]["name"], p["metadata"]["uid"]) for p in pods] == \
        [("before", pods[0]["metadata"]["uid"]), ("during", created["metadata"]["uid"])]
    db = sqlite3.connect(settings.data_dir / f"{settings.cluster}.store.db")
    assert db.execute("SELECT v FROM meta WHERE k = 'claim'").fetchone()[0] == 2
    client.close()


def test_a_request_whose_answer_was_lost_is_retried_to_one_effect(cluster, procs, settings):
    """The client's connection drops while its create waits at a frozen store: the Client retries
    with the same message id and gets the first answer, and there is one pod."""
    if not management_answers(settings.admin_url):
        pytest.skip("needs the management API")
    store = procs.procs[0]
    os.kill(store.pid, signal.SIGSTOP)
    try:
        future = cluster.request_async("create", "Pod", namespace="default", obj=_pod("once"), timeout=40)
        wait_until(lambda: _queued(settings, f"{settings.cluster}.store"), 30, 0.5,
                   what="the command to wait at the frozen store")
        close_connections_of(os.getpid(), settings.admin_url)
    finally:
        os.kill(store.pid, signal.SIGCONT)
    reply = future.result(60)
    assert isinstance(reply, dict) and reply["ok"], reply
    pods = cluster.list("Pod").items
    assert [p["metadata"]["uid"] for p in pods] == [reply["object"]["metadata"]["uid"]]


def _queued(settings, queue: str) -> bool:
    from urllib.parse import quote, urlparse

    import requests

    url = urlparse(settings.admin_url)
    stats = requests.get(f"http://{url.hostname}:15672/api/queues/%2F/{quote(queue, safe='')}",
                         auth=(url.username, url.password), timeout=5).json()
    return stats.get("messages", 0) >= 1


def test_a_key_whose_last_object_went_keeps_getting_bookmarks(procs, settings):
    """So a consumer that lost that DELETED (a broker restart, an overflow) repairs its cache."""
    procs.start("store", KUBUS_BOOKMARK_SWEEP_S="0.5")
    procs.start("actors.apiserver")
    client = Client(settings, name="bookmarks")
    wait_serving(client)
    conn = blocking(settings.admin_url)  # the broker's administrator looks at what the store publishes
    ch = conn.channel()
    queue = ch.queue_declare("", exclusive=True).method.queue
    ch.queue_bind(queue, f"{settings.cluster}.events", "pod.default.*")
    client.create(_pod("last"))
    client.delete("Pod", "last")
    empty = []

    def count_zero_bookmarks() -> bool:
        method, _props, body = ch.basic_get(queue, auto_ack=True)
        while method is not None:
            msg = msgpack.unpackb(body)
            if isinstance(msg, dict) and msg.get("type") == "BOOKMARK" and msg["count"] == 0:
                empty.append(msg["rev"])
            method, _props, body = ch.basic_get(queue, auto_ack=True)
        return len(empty) >= 3

    wait_until(count_zero_bookmarks, 20, 0.2, what="three count-0 bookmarks for the emptied key")
    conn.close()
    client.close()
