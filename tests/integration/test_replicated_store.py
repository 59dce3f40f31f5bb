"""The replicated store (KUBUS_STORE_REPLICATION=stream) on the test broker: two stores with their
own databases follow `{c}.store.wal`; writes are answered once read back from the log; kill -9 of the
active loses no answered write and the standby, current from the log, serves on from the next
revision; a retried request gets its first reply; a frozen active that wakes after the takeover is
deposed by the log and never answers."""
from __future__ import annotations

import os
import signal
import sqlite3

import msgpack

from bus.topology import DEAD_REASON, Names
from runtime.client import Client
from store import wal
from tests.conftest import wait_serving
from testkit.failover import REPLICATED
from bus.testkit import blocking
from testkit.waiting import wait_until
from tests.helpers import read_queue
from tests.integration.test_dead_letter import GOOD_HEADERS, _publish
from tests.integration.test_store_crash import (_answered, _check_nothing_lost, _retry_everything_with_the_same_ids,
                                               _start_writers)


def start_store(procs, tmp_path, name: str):
    data = tmp_path / f"data-{name}"
    proc = procs.start("store", label=f"store-{name}", KUBUS_DATA_DIR=str(data), **REPLICATED)
    return proc, data


def stored_names(data, cluster: str) -> set[str]:
    with sqlite3.connect(str(data / f"{cluster}.store.db")) as db:
        return {name for (name,) in db.execute("SELECT name FROM objects WHERE kind = 'Pod'")}


def test_a_standby_follows_the_log_and_takes_over_losing_nothing(procs, settings, tmp_path):
    active, _ = start_store(procs, tmp_path, "a")
    client = Client(settings, name="writer")
    procs.start("actors.apiserver")
    wait_serving(client)
    _, standby_data = start_store(procs, tmp_path, "b")
    standby_log = procs.logdir / "store-b-2.log"
    wait_until(lambda: "actor.standby" in standby_log.read_text(), what="the second store to wait as standby")
    watch = client.watch("Pod", "default").wait_synced()
    writers = _start_writers(client, 4, 50)
    wait_until(lambda: len(_answered(writers)) >= 60, 60, what="writes before the crash")
    wait_until(lambda: set(list(_answered(writers))[:40]) <= stored_names(standby_data, settings.cluster), 10,
               what="the standby's database to follow the log")
    rev_before = max(int(o["metadata"]["resourceVersion"]) for o in _answered(writers).values())
    procs.kill9(active)
    for w in writers:
        w.join(120)
    assert "store.claimed" in standby_log.read_text()
    assert len(_answered(writers)) > 60
    _check_nothing_lost(client, writers, watch)
    _retry_everything_with_the_same_ids(client, writers)
    after = client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "after"}})
    assert int(after["metadata"]["resourceVersion"]) > rev_before
    client.close()


def test_a_frozen_active_is_deposed_by_the_log(procs, settings, tmp_path):
    env = {"KUBUS_HEARTBEAT_S": "2"}  # the broker drops the frozen store's connection (and lock) fast
    data_a = tmp_path / "data-a"
    active = procs.start("store", label="store-a", KUBUS_DATA_DIR=str(data_a), **REPLICATED, **env)
    client = Client(settings, name="writer")
    procs.start("actors.apiserver")
    wait_serving(client)
    procs.start("store", label="store-b", KUBUS_DATA_DIR=str(tmp_path / "data-b"), **REPLICATED, **env)
    standby_log = procs.logdir / "store-b-2.log"
    wait_until(lambda: "actor.standby" in standby_log.read_text(), what="the second store to wait as standby")
    client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "before"}})
    os.kill(active.pid, signal.SIGSTOP)
    wait_until(lambda: "store.claimed" in standby_log.read_text(), 60, what="the standby to claim the log")
    made = client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "during"}})
    os.kill(active.pid, signal.SIGCONT)
    assert active.wait(30) == 75  # fenced: frozen past its heartbeat, or deposed by the log
    assert client.get("Namespace", "during")["metadata"]["uid"] == made["metadata"]["uid"]
    assert {"before", "during"} <= {n["metadata"]["name"] for n in client.list("Namespace").items}
    client.close()


def test_a_store_that_starts_past_the_logs_retention_gets_a_copy_and_can_take_over(procs, settings, tmp_path):
    """A standby started after the WAL's retention dropped its first entries cannot be made current
    from the log (had it taken over, it would have served a store without those writes): it asks
    the active store for a copy of its database, starts again from it, and takes over with all."""
    small = {**REPLICATED, "KUBUS_WAL_MAX_BYTES": str(1 << 20), "KUBUS_WAL_SEGMENT_BYTES": str(1 << 16)}
    active = procs.start("store", label="store-a", KUBUS_DATA_DIR=str(tmp_path / "data-a"), **small)
    procs.start("actors.apiserver")
    client = Client(settings, name="writer")
    wait_serving(client)
    big = "x" * (100 << 10)
    names = {f"big-{n}" for n in range(30)}
    for name in sorted(names):  # ~6 MiB of batches (object and event) through a log that keeps 1 MiB
        client.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "annotations": {"f": big}},
                       "spec": {"nodeName": "nowhere", "containers": [{"name": "c", "image": "busybox"}]}},
                      namespace="default")
    late_data = tmp_path / "data-b"
    procs.start("store", label="store-b", KUBUS_DATA_DIR=str(late_data), **small)
    log = procs.logdir / "store-b-2.log"
    wait_until(lambda: "store.replica_installed" in log.read_text(), 60, what="the late store to get a copy")
    wait_until(lambda: log.read_text().count("actor.standby") == 2, 30, what="the late store to start again")
    wait_until(lambda: names <= stored_names(late_data, settings.cluster), 10, what="the copy in its database")
    client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "after-the-copy"}})
    procs.kill9(active)
    wait_until(lambda: "store.claimed" in log.read_text(), 60, what="the late store to take over")
    assert {p["metadata"]["name"] for p in client.list("Pod", "default").items} >= names
    assert client.get("Namespace", "after-the-copy")["metadata"]["name"] == "after-the-copy"  # followed the log on
    client.close()


def test_copies_of_the_store_go_to_stores_only(procs, settings, tmp_path, amqp_url):
    """The default exchange reaches `{c}.store.replica` from whoever answers over direct reply-to;
    a kubelet asking for a copy of the database is dead-lettered, not answered, and so is a store's
    request with no address to send the copy to."""
    start_store(procs, tmp_path, "a")
    procs.start("actors.apiserver")
    client = Client(settings, name="setup")
    wait_serving(client)
    names = Names(settings.cluster)
    _publish(procs.url_of("actors.kubelet", ("--node", "node-x")), "", names.store_replica,
             msgpack.packb({"verb": "replica"}), GOOD_HEADERS)
    dead = wait_until(lambda: read_queue(amqp_url, names.dead_queue), what="the request in the dead queue")
    assert dead[0][0].headers.get(DEAD_REASON, "").startswith("forbidden: copies of the store go to stores only")
    _publish(procs.url_of("store", ()), "", names.store_replica, msgpack.packb({"verb": "replica"}), GOOD_HEADERS)
    dead = wait_until(lambda: read_queue(amqp_url, names.dead_queue), what="the store's request in the dead queue")
    assert dead[0][0].headers.get(DEAD_REASON, "").startswith("reply-to: None is not a direct reply-to address")
    client.close()


def test_reads_are_answered_after_a_read_barrier_in_the_log(procs, settings, tmp_path, amqp_url):
    """A batch of reads only appends a `beat` of the store's epoch and is answered once it is read
    back accepted, so a store deposed without knowing it cannot answer reads from memory."""
    start_store(procs, tmp_path, "a")
    procs.start("actors.apiserver")
    client = Client(settings, name="reader")
    wait_serving(client)
    beats_before = _beats(amqp_url, settings.cluster)
    for _ in range(5):
        assert client.get("Namespace", "default")["metadata"]["name"] == "default"
    assert _beats(amqp_url, settings.cluster) >= beats_before + 5
    client.close()


def _beats(amqp_url: str, cluster: str) -> int:
    """The read barriers in the cluster's WAL so far."""
    connection = blocking(amqp_url)
    channel = connection.channel()
    channel.basic_qos(prefetch_count=500)
    beats = 0
    try:
        for method, _, body in channel.consume(Names(cluster).store_wal,
                                               arguments={"x-stream-offset": "first"}, inactivity_timeout=0.5):
            if method is None:
                return beats
            beats += wal.decode(body)["t"] == wal.BEAT
            channel.basic_ack(method.delivery_tag)
    finally:
        try:
            connection.close()
        except Exception:  # noqa: BLE001 - closing rejects prefetched deliveries, which a stream refuses (540)
            pass
    return beats
