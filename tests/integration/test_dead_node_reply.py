"""A reply to a client on a broker node that is not running: RabbitMQ 3.10 crashes the publishing
channel and closes its connection (541 INTERNAL_ERROR). Anyone can write such an address into a
request; it costs the store or the apiserver their reply connection, never their own (before: the
store's own connection, on every redelivery of the batch until its deadline; the apiserver's, on
every redelivery of a request it refused, with no end)."""
from __future__ import annotations

import base64
import json
import uuid

import msgpack
import pika

from bus.replyto import PREFIX
from bus.topology import SCHEMA_HEADER, SCHEMA_VERSION
from bus.testkit import blocking
from testkit.waiting import wait_until
from tests.helpers import reply_address


def dead_node_address(url: str) -> str:
    """A direct reply-to address as the broker makes them, its node hash changed to one no node has."""
    pid, key = reply_address(url).removeprefix(PREFIX).split(".", 1)
    raw = base64.b64decode(pid)  # 131, NEW_PID_EXT, ATOM_UTF8_EXT, 2-byte length, "reply@<hash>", ids
    size = int.from_bytes(raw[3:5], "big")
    node = b"reply@1"
    raw = raw[:3] + len(node).to_bytes(2, "big") + node + raw[5 + size:]
    return f"{PREFIX}{base64.b64encode(raw).decode()}.{key}"


def pod(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "app", "image": "busybox:1.36"}]}}


def losses(log, connection: str) -> int:
    found = 0
    for line in log.read_text().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        found += entry.get("event") == "bus.connection_lost" and entry.get("connection") == connection
    return found


def publish(settings, request: dict, **props) -> None:
    conn = blocking(settings.amqp_url)
    conn.channel().basic_publish(f"{settings.cluster}.api", "apiserver", msgpack.packb(request), pika.BasicProperties(
        content_type="application/msgpack", type="request", message_id=uuid.uuid4().hex, correlation_id="1",
        reply_to=dead_node_address(settings.admin_url), user_id=settings.amqp_user,
        headers={SCHEMA_HEADER: SCHEMA_VERSION}, **props))
    conn.close()


def test_a_reply_to_a_dead_node_costs_the_store_its_reply_connection_only(cluster, procs, settings):
    request = {"verb": "create", "kind": "Pod", "namespace": "default", "name": None, "resourceVersion": None,
               "options": {}, "object": pod("orphan")}
    publish(settings, request, expiration="30000")
    log = procs.logdir / "store-0.log"
    wait_until(lambda: losses(log, "store replies"), 30, what="the reply to crash the store's reply connection")
    assert cluster.create(pod("after"))
    assert cluster.get("Pod", "orphan")["metadata"]["name"] == "orphan"  # written once, answered to nobody
    assert losses(log, "store") == 0


def test_a_refusal_to_a_dead_node_costs_the_apiserver_its_reply_connection_only(cluster, procs, settings):
    publish(settings, {"verb": "get", "kind": "Nope", "namespace": "default", "name": "x", "resourceVersion": None,
                       "options": {}, "object": None})  # refused by the apiserver itself; no deadline
    log = procs.logdir / "apiserver-1.log"
    wait_until(lambda: losses(log, "apiserver replies"), 30, what="the refusal to crash the reply connection")
    assert cluster.create(pod("after"))
    assert losses(log, "apiserver") == 0
