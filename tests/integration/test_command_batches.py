"""An apiserver hands admitted commands to the store in batches of at most `BATCH_COMMANDS`, even when
many more requests reach it in one turn, so the store starts on the first while it admits the rest."""
from __future__ import annotations

import os
import signal
import uuid
from urllib.parse import unquote, urlparse

import msgpack
import pika

from actors.apiserver.batches import BATCH_COMMANDS
from bus.topology import SCHEMA_HEADER, SCHEMA_VERSION
from tests.helpers import blocking


def _pod(i: int) -> bytes:
    return msgpack.packb({"verb": "create", "kind": "Pod", "namespace": "default", "name": None, "resourceVersion": None,
                          "options": {}, "object": {"apiVersion": "v1", "kind": "Pod",
                                                    "metadata": {"name": f"burst-{i}", "namespace": "default"},
                                                    "spec": {"containers": [{"name": "c", "image": "busybox"}]}}})


def _drain(ch, queue: str) -> list[tuple[pika.BasicProperties, bytes]]:
    out = []
    while (got := ch.basic_get(queue, auto_ack=True))[0] is not None:
        out.append(got[1:])
    return out


def test_a_burst_of_requests_leaves_the_apiserver_in_several_batches(cluster, procs, settings):
    apiserver = next(p for p in procs.procs if "actors.apiserver" in p.args)
    admin = blocking(settings.admin_url).channel()
    capture = admin.queue_declare("", exclusive=True).method.queue  # a copy of what reaches the store
    admin.queue_bind(capture, f"{settings.cluster}.store", "store")
    conn = blocking(settings.amqp_url)
    ch = conn.channel()
    ch.confirm_delivery()
    replies: list[dict] = []
    ch.basic_consume("amq.rabbitmq.reply-to", lambda _c, _m, _p, body: replies.append(msgpack.unpackb(body)),
                     auto_ack=True)
    burst = 3 * BATCH_COMMANDS - 4
    os.kill(apiserver.pid, signal.SIGSTOP)  # every request waits, then reaches it in one burst
    try:
        for i in range(burst):
            ch.basic_publish(f"{settings.cluster}.api", "apiserver", _pod(i), pika.BasicProperties(
                type="request", message_id=uuid.uuid4().hex, correlation_id=str(i), reply_to="amq.rabbitmq.reply-to",
                content_type="application/msgpack", user_id=unquote(urlparse(settings.amqp_url).username), headers={SCHEMA_HEADER: SCHEMA_VERSION}))
    finally:
        os.kill(apiserver.pid, signal.SIGCONT)
    while len(replies) < burst:
        conn.process_data_events(time_limit=0.2)
    conn.close()
    assert all(r["ok"] for r in replies), [r for r in replies if not r["ok"]][:1]
    sizes = [len(msgpack.unpackb(body)) for props, body in _drain(admin, capture) if props.type == "commands"]
    admin.connection.close()
    assert sum(sizes) == burst
    assert max(sizes) == BATCH_COMMANDS and len(sizes) >= 3, sizes
