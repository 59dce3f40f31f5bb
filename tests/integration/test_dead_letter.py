"""Garbage, oversize and wrong-schema messages land in `{c}.dead` with the reason; actors go on."""
from __future__ import annotations

from urllib.parse import unquote, urlparse

import msgpack
import pika
import pytest

from bus.topology import DEAD_REASON, SCHEMA_VERSION, Names
from bus.testkit import blocking
from testkit.waiting import wait_until
from tests.helpers import read_queue
from tests.integration.test_crud import pod

GOOD_HEADERS = {"x-kubus-schema": SCHEMA_VERSION}
REQUEST = {"verb": "get", "kind": "Namespace", "name": "default", "options": {}}


def _publish(url: str, exchange: str, key: str, body: bytes, headers: dict | None) -> None:
    """As the user of `url` (its user_id set, as the broker checks)."""
    conn = blocking(url)
    try:
        props = pika.BasicProperties(headers=headers, message_id="poison", user_id=unquote(urlparse(url).username),
                                     type="request")
        conn.channel().basic_publish(exchange, key, body, props)
    finally:
        conn.close()


def sender(procs, settings, target: str) -> str:
    """Who may send there: a person to the apiservers, an apiserver to the store, the store events."""
    return {"apiserver": settings.amqp_url, "store": procs.url_of("actors.apiserver", ()),
            "events": procs.url_of("store", ())}[target]


CASES = [
    pytest.param(b"\xc1\xc1 not msgpack", GOOD_HEADERS, "undecodable", id="garbage"),
    pytest.param(msgpack.packb({"pad": "x" * (2 << 20)}), GOOD_HEADERS, "oversize", id="oversize"),
    pytest.param(msgpack.packb(REQUEST), {"x-kubus-schema": 1}, "schema", id="schema-1"),
    pytest.param(msgpack.packb(REQUEST), {"x-kubus-schema": 3}, "schema", id="schema-3"),
    pytest.param(msgpack.packb(REQUEST), None, "schema", id="no-schema"),
    pytest.param(msgpack.packb({**REQUEST, "verb": "explode"}), GOOD_HEADERS, "invalid", id="unknown-verb"),
    pytest.param(msgpack.packb([1, 2, 3]), GOOD_HEADERS, "invalid", id="not-a-map"),
    pytest.param(msgpack.packb({1: "int key"}), GOOD_HEADERS, "undecodable", id="int-key"),
    pytest.param(msgpack.packb({"verb": msgpack.ExtType(5, b"x")}), GOOD_HEADERS, "undecodable", id="ext-type"),
]


pytestmark = pytest.mark.shared_plane  # the module's one plane; its dead queue emptied by each test that reads it


@pytest.mark.parametrize("target", ["apiserver", "store"])
@pytest.mark.parametrize("body,headers,reason", CASES)
def test_bad_messages_are_dead_lettered_with_reason(cluster, procs, settings, amqp_url, target, body, headers,
                                                    reason):
    names = Names(cluster.names.cluster)
    assert read_queue(amqp_url, names.dead_queue) == []  # nothing an earlier test sent is still on its way
    exchange = names.api if target == "apiserver" else names.store
    _publish(sender(procs, settings, target), exchange, target, body, headers)
    dead = wait_until(lambda: read_queue(amqp_url, names.dead_queue), what="the message in the dead queue")
    props, raw = dead[0]
    assert raw == body
    assert props.headers[DEAD_REASON].startswith(reason), props.headers[DEAD_REASON]
    assert props.headers["x-kubus-dead-actor"] == target
    assert cluster.create(pod("still-serving"))["metadata"]["name"] == "still-serving"


def test_bad_event_is_dead_lettered_by_the_watcher(cluster, procs, settings, amqp_url):
    names = Names(cluster.names.cluster)
    assert read_queue(amqp_url, names.dead_queue) == []  # nothing an earlier test sent is still on its way
    watch = cluster.watch("Pod", cluster.namespace).wait_synced()
    _publish(sender(procs, settings, "events"), names.events, f"pod.{cluster.namespace}.-", b"\xc1", GOOD_HEADERS)
    dead = wait_until(lambda: read_queue(amqp_url, names.dead_queue), what="the event in the dead queue")
    # a person may not write `{c}.dead`: the watch rejects the event and the broker dead-letters it
    assert (dead[0][0].headers["x-first-death-reason"], dead[0][0].headers["x-first-death-queue"]) == \
        ("rejected", watch.informer.spec.name)
    cluster.create(pod("after-poison"))
    assert watch.next(timeout=10).object["metadata"]["name"] == "after-poison"
    watch.close()


@pytest.mark.parametrize("target, sender, reason", [
    pytest.param("store", ("actors.kubelet", ("--node", "node-x")), "forbidden: ", id="a-command-from-a-kubelet"),
    pytest.param("events", ("actors.apiserver", ()), "rejected", id="an-event-from-an-apiserver")])
def test_what_only_one_actor_may_send_is_dead_lettered_from_anyone_else(cluster, procs, amqp_url, target, sender,
                                                                        reason):
    """Whoever answers over direct reply-to (the store, apiservers, kubelets) writes the default
    exchange, which reaches any queue: the store takes commands only from apiservers, a watch events
    only from the store (it rejects the rest to the broker's dead-lettering: a person may not write
    `{c}.dead`)."""
    names = Names(cluster.names.cluster)
    assert read_queue(amqp_url, names.dead_queue) == []  # nothing an earlier test sent is still on its way
    watch = cluster.watch("Pod", cluster.namespace).wait_synced()
    queue = names.store_queue if target == "store" else watch.informer.spec.name
    body = msgpack.packb({"verb": "create", "kind": "Pod", "namespace": cluster.namespace, "object": pod("forged")}
                         if target == "store" else {"type": "ADDED", "kind": "Pod", "rev": 10 ** 9, "prev": 0,
                                                    "object": pod("forged")})
    _publish(procs.url_of(*sender), "", queue, body, GOOD_HEADERS)
    dead = wait_until(lambda: read_queue(amqp_url, names.dead_queue), what="the forged message in the dead queue")
    headers = dead[0][0].headers
    assert (headers.get(DEAD_REASON) or headers.get("x-first-death-reason")).startswith(reason), headers
    assert [p["metadata"]["name"] for p in cluster.list("Pod", cluster.namespace).items] == []
    watch.close()


def test_request_without_user_id_is_unauthorized(cluster, amqp_url):
    conn = blocking(amqp_url)
    try:
        ch = conn.channel()
        ch.basic_consume("amq.rabbitmq.reply-to", lambda *a: replies.append(a[3]), auto_ack=True)
        replies: list[bytes] = []
        props = pika.BasicProperties(headers=GOOD_HEADERS, message_id="anon", reply_to="amq.rabbitmq.reply-to",
                                     correlation_id="c1")
        ch.basic_publish(Names(cluster.names.cluster).api, "apiserver", msgpack.packb(REQUEST), props)
        wait_until(lambda: conn.process_data_events(0.1) or replies, what="the reply")
    finally:
        conn.close()
    status = msgpack.unpackb(replies[0])["status"]
    assert (status["reason"], status["code"]) == ("Unauthorized", 401)
