"""An apiserver hands admitted commands to the store in batches of at most `BATCH_COMMANDS`, even when
many more requests reach it in one turn, so the store starts on the first while it admits the rest;
and holds a batch a few milliseconds when more commands are likely to join it."""
from __future__ import annotations

import itertools
import os
import signal
import time
import uuid
from urllib.parse import unquote, urlparse

import msgpack
import pika

from actors.apiserver.batches import BATCH_COMMANDS
from actors.apiserver.linger import TAU_S
from bus.topology import SCHEMA_HEADER, SCHEMA_VERSION
from bus.testkit import blocking


def _pod(i: int) -> bytes:
    return msgpack.packb({"verb": "create", "kind": "Pod", "namespace": "default", "name": None, "resourceVersion": None,
                          "options": {}, "object": {"apiVersion": "v1", "kind": "Pod",
                                                    "metadata": {"name": f"burst-{i}", "namespace": "default"},
                                                    "spec": {"containers": [{"name": "c", "image": "busybox"}]}}})


def _get(name: str) -> bytes:
    return msgpack.packb({"verb": "get", "kind": "Pod", "namespace": "default", "name": name, "resourceVersion": None,
                          "options": {}, "object": None})


def _request(settings, body: bytes, correlation_id: str) -> tuple[str, str, bytes, pika.BasicProperties]:
    """basic_publish's arguments for one request to the apiserver, as `admin`."""
    return f"{settings.cluster}.api", "apiserver", body, pika.BasicProperties(
        type="request", message_id=uuid.uuid4().hex, correlation_id=correlation_id, reply_to="amq.rabbitmq.reply-to",
        content_type="application/msgpack", user_id=unquote(urlparse(settings.amqp_url).username),
        headers={SCHEMA_HEADER: SCHEMA_VERSION})


def _sender(settings, replies: list[dict]):
    """A channel of its own (so a reply address of its own) that collects its replies."""
    ch = blocking(settings.amqp_url).channel()
    ch.basic_consume("amq.rabbitmq.reply-to", lambda _c, _m, _p, body: replies.append(msgpack.unpackb(body)),
                     auto_ack=True)
    return ch


def _capture(settings):
    """A copy of every message that reaches the store's queue."""
    admin = blocking(settings.admin_url).channel()
    capture = admin.queue_declare("", exclusive=True).method.queue
    admin.queue_bind(capture, f"{settings.cluster}.store", "store")
    return admin, capture


def _drain(ch, queue: str) -> list[tuple[pika.BasicProperties, bytes]]:
    out = []
    while (got := ch.basic_get(queue, auto_ack=True))[0] is not None:
        out.append(got[1:])
    return out


def test_a_burst_of_requests_leaves_the_apiserver_in_several_batches(cluster, procs, settings):
    apiserver = next(p for p in procs.procs if "actors.apiserver" in p.args)
    admin, capture = _capture(settings)
    replies: list[dict] = []
    ch = _sender(settings, replies)
    ch.confirm_delivery()
    burst = 3 * BATCH_COMMANDS - 4
    os.kill(apiserver.pid, signal.SIGSTOP)  # every request waits, then reaches it in one burst
    try:
        for i in range(burst):
            ch.basic_publish(*_request(settings, _pod(i), str(i)))
    finally:
        os.kill(apiserver.pid, signal.SIGCONT)
    while len(replies) < burst:
        ch.connection.process_data_events(time_limit=0.2)
    ch.connection.close()
    assert all(r["ok"] for r in replies), [r for r in replies if not r["ok"]][:1]
    sizes = [len(msgpack.unpackb(body)) for props, body in _drain(admin, capture) if props.type == "commands"]
    admin.connection.close()
    assert sum(sizes) == burst
    assert max(sizes) == BATCH_COMMANDS and len(sizes) >= 3, sizes


def _pace(period: float):
    """Each `next()` sleeps until the next multiple of `period` since the first: the load's pace, not a
    wait for a result. Ticks a late wake-up (a busy machine) delayed come at once after it, so the rate
    stays one a `period` — `sleep(period)` a tick drifted to several milliseconds under a full test run,
    and commands then left alone because no other was due within the hold."""
    start = time.monotonic()
    for n in itertools.count(1):
        time.sleep(max(0.0, start + n * period - time.monotonic()))
        yield


def _counted_batch_sizes(settings, warm: list[list[int]], counted: list[list[int]]) -> list[int]:
    """Ticks a millisecond apart, each sending a request from every sender it names (a channel each):
    the `warm` ticks teach the apiserver the senders, the `counted` ticks' requests are counted. Once all
    are answered (NotFound): the number of counted commands in each batch that had any."""
    admin, capture = _capture(settings)
    replies: list[dict] = []
    senders = [_sender(settings, replies) for _ in range(1 + max(max(tick) for tick in warm + counted))]
    sent = 0
    paced = _pace(0.001)
    for tag, ticks in (("warm", warm), ("counted", counted)):
        for tick in ticks:
            for who in tick:
                senders[who].basic_publish(*_request(settings, _get(f"absent-{sent}"), f"{tag}-{sent}"))
                sent += 1
            next(paced)
    deadline = time.monotonic() + 30
    while len(replies) < sent and time.monotonic() < deadline:
        for ch in senders:
            ch.connection.process_data_events(time_limit=0.05)
    for ch in senders:
        ch.connection.close()
    assert len(replies) == sent and all(r["status"]["reason"] == "NotFound" for r in replies)
    batches = [[c for c in msgpack.unpackb(body) if c["correlation_id"].startswith("counted-")]
               for props, body in _drain(admin, capture) if props.type == "commands"]
    admin.connection.close()
    sizes = [len(b) for b in batches if b]
    assert sum(sizes) == sum(len(tick) for tick in counted)
    return sizes


WARM_TICKS = int(2 * TAU_S / 0.001)  # two `TAU_S` teach the apiserver the rates


def test_commands_of_senders_taking_turns_share_batches(cluster, settings):
    """Two senders taking turns every millisecond: each command would leave alone, were it not held
    for the other's."""
    sizes = _counted_batch_sizes(settings, [[i % 2] for i in range(WARM_TICKS)], [[i % 2] for i in range(400)])
    assert 400 / len(sizes) >= 2, sizes  # alone, each left in a batch of its own (one or two)


def test_commands_of_a_sender_that_does_not_wait_for_its_answers_share_batches(cluster, settings):
    """One sender, a command every millisecond without waiting for the answers (its first ones in
    pairs, so that two are at the apiserver at once): held for its own next ones."""
    sizes = _counted_batch_sizes(settings, [[0, 0]] * (WARM_TICKS // 2), [[0]] * 400)
    assert 400 / len(sizes) >= 2, sizes  # alone, each left in a batch of its own (one or two)
