"""Wire v2 over the real broker: a `commands` batch is answered per command, its events leave as runs
that keep every queue's revision order, and a consumer bound to one key sees only its events."""
from __future__ import annotations

import time
import uuid

import msgpack
import pika

from bus.topology import SCHEMA_HEADER, SCHEMA_VERSION
from bus.testkit import blocking
from testkit.waiting import wait_until


def _pod(name: str, ns: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}


def _namespace(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def _envelope(broker: "Broker", command: dict, **extra) -> dict:
    return {"id": uuid.uuid4().hex, "user": "guest", "reply_to": broker.address,
            "correlation_id": uuid.uuid4().hex, "expires": None, "command": command, **extra}


def _create(obj: dict) -> dict:
    meta = obj["metadata"]
    return {"verb": "create", "kind": obj["kind"], "namespace": meta.get("namespace"), "name": None, "object": obj,
            "resourceVersion": None, "options": {}}


class Broker:
    """Raw connections: as an apiserver (command batches and their direct reply-to answers), and as
    the broker's administrator (queues bound to `{c}.events`, to look at what the store published)."""

    def __init__(self, url: str, cluster: str, admin_url: str):
        self.cluster = cluster
        self.conn, self.admin = blocking(url), blocking(admin_url)
        self.ch, self.admin_ch = self.conn.channel(), self.admin.channel()
        self.replies: dict[str, dict] = {}
        self.ch.basic_consume("amq.rabbitmq.reply-to", self._reply, auto_ack=True)
        self.address = self._own_address()

    def _own_address(self) -> str:
        """This channel's direct reply-to address, as the broker writes it into what we publish (an
        apiserver copies that into each command of a batch)."""
        probe = self.ch.queue_declare(f"{self.cluster}.apiserver.cache.probe{uuid.uuid4().hex[:8]}",
                                      exclusive=True).method.queue  # a name an apiserver may declare
        self.ch.basic_publish("", probe, b"", pika.BasicProperties(reply_to="amq.rabbitmq.reply-to"))
        method, props, _ = self.ch.basic_get(probe, auto_ack=True)
        return props.reply_to

    def _reply(self, _ch, _method, props, body) -> None:
        self.replies[props.correlation_id] = msgpack.unpackb(body)

    def queue(self, *keys: str) -> str:
        name = self.admin_ch.queue_declare("", exclusive=True).method.queue
        for key in keys:
            self.admin_ch.queue_bind(name, f"{self.cluster}.events", key)
        return name

    def send_batch(self, envelopes: list[dict]) -> None:
        props = pika.BasicProperties(type="commands", headers={SCHEMA_HEADER: SCHEMA_VERSION},
                                     content_type="application/msgpack", reply_to="amq.rabbitmq.reply-to",
                                     user_id=f"{self.cluster}.apiserver")
        self.ch.basic_publish(f"{self.cluster}.store", "store", msgpack.packb(envelopes), props)

    def answers(self, envelopes: list[dict], timeout: float = 15) -> list[dict]:
        wanted = [e["correlation_id"] for e in envelopes]
        deadline = time.monotonic() + timeout
        while not all(c in self.replies for c in wanted) and time.monotonic() < deadline:
            self.conn.process_data_events(time_limit=0.1)
        return [self.replies.get(c) for c in wanted]

    def messages(self, queue: str) -> list[list[dict]]:
        """Every event message waiting in `queue`, bookmarks left out, each as its list of events."""
        out = []
        while True:
            method, _props, body = self.admin_ch.basic_get(queue, auto_ack=True)
            if method is None:
                return out
            events = msgpack.unpackb(body)
            if isinstance(events, list):
                out.append(events)

    def close(self) -> None:
        self.conn.close()
        self.admin.close()


def test_a_batch_with_interleaved_keys_keeps_every_queues_order(cluster, procs, settings):
    broker = Broker(procs.url_of("actors.apiserver", ()), settings.cluster, settings.admin_url)
    try:
        setup = [_envelope(broker, _create(_namespace(ns))) for ns in ("ka", "kb")]
        broker.send_batch(setup)
        assert all(r and r["ok"] for r in broker.answers(setup))
        both, only_a = broker.queue("pod.ka.*", "pod.kb.*"), broker.queue("pod.ka.*")
        order = [("a1", "ka"), ("a2", "ka"), ("b1", "kb"), ("a3", "ka")]  # runs: ka ka | kb | ka
        batch = [_envelope(broker, _create(_pod(name, ns))) for name, ns in order]
        broker.send_batch(batch)
        answers = broker.answers(batch)
        assert [a["object"]["metadata"]["name"] for a in answers] == [name for name, _ in order]
        revs = [int(a["object"]["metadata"]["resourceVersion"]) for a in answers]
        got = wait_until(lambda: (m := broker.messages(both)) and m, 10, what="the events on the queue bound to both")
        while sum(map(len, got)) < 4:
            got += broker.messages(both)
        assert [[e["object"]["metadata"]["name"] for e in m] for m in got] == [["a1", "a2"], ["b1"], ["a3"]]
        assert [e["rev"] for m in got for e in m] == revs == sorted(revs)
        only = broker.messages(only_a)
        assert [[e["object"]["metadata"]["name"] for e in m] for m in only] == [["a1", "a2"], ["a3"]]
    finally:
        broker.close()


def test_each_command_of_a_batch_is_deduped_answered_or_dropped_on_its_own(cluster, procs, settings):
    broker = Broker(procs.url_of("actors.apiserver", ()), settings.cluster, settings.admin_url)
    try:
        first = _envelope(broker, _create(_pod("dup", "default")))
        expired = _envelope(broker, _create(_pod("late", "default")), expires=time.time() - 1)
        bad = _envelope(broker, {"verb": "list", "kind": "Pod", "options": {"fieldSelector": 5}})
        broker.send_batch([first, expired, bad])
        answers = broker.answers([first, bad])
        assert answers[0]["ok"] and answers[1]["status"]["code"] == 400
        retry = {**first, "correlation_id": uuid.uuid4().hex}  # same user and id: the first answer again
        other_user = {**first, "user": "someone-else", "correlation_id": uuid.uuid4().hex}
        broker.send_batch([retry, other_user])
        again, conflict = broker.answers([retry, other_user])
        assert again == answers[0]
        assert conflict["status"]["reason"] == "AlreadyExists"
        assert expired["correlation_id"] not in broker.replies  # its caller had stopped waiting
        names = [p["metadata"]["name"] for p in cluster.list("Pod").items]
        assert names == ["dup"]
    finally:
        broker.close()
