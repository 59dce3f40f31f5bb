"""The bus keeps its resources bounded and survives what the broker or a server sends it:
RPC bookkeeping freed, malformed replies answered with InternalError, bounded queues, and
bindings a consumer no longer wants removed."""
from __future__ import annotations

from dataclasses import replace

import threading
from concurrent.futures import Future
from typing import Callable
from urllib.parse import urlparse

import msgpack
import pika
import pytest
import requests

from api.status import StatusError
from bus import admin
from bus.connection import Bus
from bus.declare import Bounds, QueueSpec, apiserver_queue, declare_exchanges, declare_queue
from bus.rpc import RpcClient
from bus.topology import SCHEMA_VERSION, Names
from config.answerers import Answerers, api_answerers
from runtime.client import Client
from bus.testkit import blocking, delete_topology
from testkit.waiting import wait_until
from tests.helpers import read_queue

SCHEMA = {"x-kubus-schema": SCHEMA_VERSION}
NOBODY = Answerers(frozenset())
NAMESPACE = {"ok": True, "object": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ok"}}}


# ---- a bus of its own on a side cluster `{c}.b`, for bounds the fixtures' clusters do not use ----
@pytest.fixture
def side(settings):
    names = Names(f"{settings.cluster}.b")
    bus = Bus(settings.admin_url, f"test {names.cluster}", "test", lambda _bus: None).start_thread()
    yield bus, names
    bus.stop()
    bus.join(5)
    delete_topology(settings.admin_url, names.cluster)


def on_loop(bus: Bus, fn: Callable[[Future], None], timeout: float = 10) -> object:
    """Run `fn(future)` on the bus's ioloop; wait for what it sets."""
    fut: Future = Future()
    bus.call_soon(lambda: fn(fut))
    return fut.result(timeout)


def declare(bus: Bus, names: Names, spec: QueueSpec, bounds: Bounds) -> None:
    def run(fut: Future) -> None:
        declare_exchanges(bus, names, bounds)  # as `kubus bootstrap` does, shared queues included
        declare_queue(bus, names, replace(spec, shared=False), lambda: fut.set_result(True), bounds=bounds)

    on_loop(bus, run)


def message_count(amqp_url: str, queue: str) -> int:
    conn = blocking(amqp_url)
    try:
        return conn.channel().queue_declare(queue, passive=True).method.message_count
    finally:
        conn.close()


# ---- per-RPC bookkeeping ------------------------------------------------------------------------
def test_rpc_bookkeeping_is_freed_when_calls_complete(cluster):
    futures = [cluster.request_async("get", "Namespace", name="default") for _ in range(500)]
    assert all(f.result(30)["ok"] for f in futures)
    wait_until(lambda: not cluster.bus._returns and not cluster.rpc.pending, 10,
               what="no return handler or pending call left")


# ---- replies of the wrong shape -----------------------------------------------------------------
MALFORMED = {  # request name -> (reply body, headers)
    "not-msgpack": (b"\xc1", SCHEMA),
    "not-a-map": (msgpack.packb([1, 2]), SCHEMA),
    "no-schema": (msgpack.packb(NAMESPACE), None),
    "too-deep": (b"\x81\xa1k" * 200 + b"\xc0", SCHEMA),
    "ok-not-a-bool": (msgpack.packb({"ok": "yes", "object": {}}), SCHEMA),
    "items-not-a-list": (msgpack.packb({"ok": True, "items": "abc", "rev": 1}), SCHEMA),
    "more-not-a-bool": (msgpack.packb({"ok": True, "items": [], "rev": 1, "more": "yes"}), SCHEMA),
    "status-not-a-map": (msgpack.packb({"ok": False, "status": "boom"}), SCHEMA),
    "status-of-wrong-shape": (msgpack.packb({"ok": False, "status": {"details": "x"}}), SCHEMA),
}
REPLIES = {**MALFORMED, "ok": (msgpack.packb(NAMESPACE), SCHEMA), "silent": None}


class FakeApiserver:
    """A raw pika consumer of `{c}.apiserver` answering each request by its `name`, from REPLIES."""

    def __init__(self, amqp_url: str, names: Names):
        self.amqp_url, self.names = amqp_url, names
        self.user = urlparse(amqp_url).username  # set on replies, as every responder does (contract 2)
        self.received: list[str] = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        conn = blocking(self.amqp_url)
        channel = conn.channel()
        spec = apiserver_queue(self.names)  # made by `kubus bootstrap`
        channel.queue_declare(spec.name, passive=True)
        channel.basic_consume(spec.name, self._on_request, auto_ack=True)
        while not self.stopping.is_set():
            conn.process_data_events(0.1)
        conn.close()

    def _on_request(self, channel, _method, props, body) -> None:
        name = msgpack.unpackb(body)["name"]
        self.received.append(name)
        if REPLIES[name] is not None:
            raw, headers = REPLIES[name]
            channel.basic_publish("", props.reply_to, raw, pika.BasicProperties(
                correlation_id=props.correlation_id, headers=headers, type="reply", user_id=self.user))

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(5)


@pytest.fixture
def fake(settings, procs):
    client = Client(settings, name=f"test {settings.cluster}")
    server = FakeApiserver(procs.url_of("actors.apiserver", ()), client.names)  # it answers as an apiserver
    yield client, server
    server.stop()
    client.close()


def test_malformed_replies_fail_the_call_and_the_connection_survives(fake):
    client, server = fake
    generation = client.bus.generation
    for name in MALFORMED:
        with pytest.raises(StatusError) as err:
            client.request("get", "Namespace", name=name, timeout=5)
        assert (err.value.reason, err.value.message.split(":")[0]) == ("InternalError", "malformed reply"), name
    assert client.get("Namespace", "ok")["metadata"]["name"] == "ok"
    assert client.bus.generation == generation and client.bus.ready.is_set()


def test_a_raising_callback_is_logged_and_the_connection_survives(fake):
    client, server = fake

    def boom(_reply) -> None:
        raise RuntimeError("a bug in the caller's callback")

    generation = client.bus.generation
    body = {"verb": "get", "kind": "Namespace", "name": "ok"}
    client.bus.call_soon(lambda: client.rpc.call(client.names.api, "apiserver", body, boom, 5,
                                                 answerers=api_answerers(client.names.cluster)))
    wait_until(lambda: "ok" in server.received and not client.rpc.pending, what="the reply to the raising call")
    assert client.get("Namespace", "ok")["metadata"]["name"] == "ok"
    assert client.bus.generation == generation, "the connection was dropped"


def close_connection(amqp_url: str, connection_name: str) -> None:
    """Have the broker close the connection of that name (management API)."""
    url = urlparse(amqp_url)
    api, auth = f"http://{url.hostname}:15672/api", (url.username, url.password)

    def listed() -> list[str]:
        conns = requests.get(f"{api}/connections", auth=auth, timeout=5).json()
        return [c["name"] for c in conns
                if (c.get("client_properties") or {}).get("connection_name") == connection_name]

    for name in wait_until(listed, 30, 0.5, what=f"the management API to list {connection_name}"):
        requests.delete(f"{api}/connections/{requests.utils.quote(name, safe='')}", auth=auth, timeout=5)


def test_a_connection_lost_after_sending_answers_that_the_write_may_have_happened(fake, settings):
    client, server = fake
    generation = client.bus.generation
    pending: Future = Future()  # the RpcClient's own answer; the Client would retry it
    body = {"verb": "get", "kind": "Namespace", "name": "silent"}
    client.bus.call_soon(lambda: client.rpc.call(client.names.api, "apiserver", body, pending.set_result, 60,
                                                 answerers=api_answerers(client.names.cluster)))
    wait_until(lambda: "silent" in server.received, what="the request at the fake apiserver")
    close_connection(settings.admin_url, f"test {settings.cluster}")
    reply = pending.result(30)
    assert isinstance(reply, StatusError) and reply.reason == "ServiceUnavailable", reply
    assert "may have been applied" in reply.message
    wait_until(lambda: client.bus.generation > generation and client.bus.ready.is_set(), what="a reconnect")
    assert client.get("Namespace", "ok")["metadata"]["name"] == "ok"


# ---- bounded queues ---------------------------------------------------------------------------------
def test_a_full_request_queue_nacks_the_caller_with_too_many_requests(side, amqp_url):
    bus, names = side
    bounds = Bounds(request_queue_max_length=1)
    declare(bus, names, apiserver_queue(names, bounds), bounds)
    rpc = RpcClient(bus, 1 << 20)
    on_loop(bus, lambda fut: (rpc.setup(), fut.set_result(True)))  # calls wait for the reply consumer
    answers: list[Future] = [Future(), Future()]
    for answer in answers:
        bus.call_soon(lambda a=answer: rpc.call(names.api, "apiserver", {"verb": "get"}, a.set_result, 10,
                                                answerers=NOBODY))  # the broker's nack is the answer
    second = answers[1].result(10)
    assert isinstance(second, StatusError) and (second.reason, second.code) == ("TooManyRequests", 429), second
    assert second.message == "the request queue is full; try again later"
    assert message_count(amqp_url, names.apiserver_queue) == 1
    assert not answers[0].done()


def test_an_overflowing_event_queue_dead_letters_its_oldest_and_dead_stays_bounded(side, amqp_url):
    bus, names = side
    bounds = Bounds(dead_letter_max_length=5, queue_max_bytes=1000)  # ten 100-byte events
    watcher = QueueSpec(f"{names.cluster}.watcher", ((names.events, "pod.#"),))
    declare(bus, names, watcher, bounds)

    def publish(first: int, count: int) -> None:
        def run(fut: Future) -> None:
            for i in range(first, first + count):
                bus.publish(names.events, "pod.a.-", b"%03d" % i + b"x" * 97, type="event", message_id=f"m{i:02}")
            bus.confirmed(lambda: fut.set_result(True))

        on_loop(bus, run)

    publish(0, 12)
    wait_until(lambda: message_count(amqp_url, names.dead_queue) == 2, what="two dead letters")
    dead = read_queue(amqp_url, names.dead_queue)
    assert [props.message_id for props, _ in dead] == ["m00", "m01"]
    death = dead[0][0].headers["x-death"][0]
    assert (death["reason"], death["queue"]) == ("maxlen", watcher.name)

    publish(12, 20)  # m02..m21 overflow; the dead queue keeps the newest five
    wait_until(lambda: message_count(amqp_url, names.dead_queue) == 5
               and message_count(amqp_url, watcher.name) == 10, what="both queues at their bounds")
    assert [props.message_id for props, _ in read_queue(amqp_url, names.dead_queue)] == \
        [f"m{i}" for i in range(17, 22)]
    assert [props.message_id for props, _ in read_queue(amqp_url, watcher.name)] == \
        [f"m{i}" for i in range(22, 32)]


# ---- bindings a consumer no longer wants ----------------------------------------------------------
def test_bindings_no_longer_listed_are_removed_from_a_durable_queue(side, amqp_url):
    bus, names = side
    name = f"{names.cluster}.consumer"
    declare(bus, names, QueueSpec(name, ((names.events, "pod.a.*"), (names.events, "pod.b.*"))), Bounds())
    assert {"pod.a.*", "pod.b.*"} <= {b.routing_key for b in admin.queue_bindings(amqp_url, name)}
    declare(bus, names, QueueSpec(name, ((names.events, "pod.a.*"),)), Bounds())
    wait_until(lambda: {b.routing_key for b in admin.queue_bindings(amqp_url, name) if b.exchange == names.events}
               == {"pod.a.*"}, 10, 0.1, what="only pod.a.* bound")
