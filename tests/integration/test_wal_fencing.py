"""The store log's fencing on a real 3-node RabbitMQ cluster (scale-out.md E12, with store/wal's
rule): store `a` appends confirmed batches without reading; store `b` claims a higher epoch, reads up
to its claim and continues from there. Readers on every node agree on one history in which `b`
continues exactly where `a` was last accepted, and `a`'s batches after the claim — confirmed by the
broker — are rejected."""
from __future__ import annotations

import threading

import pika

from store.wal import Rule, batch, claim, decode, encode
from tests.failover import ON_RABBIT_CLUSTER

pytestmark = ON_RABBIT_CLUSTER
STREAM = "fencing.wal"


def channel_on(port: int):
    connection = pika.BlockingConnection(pika.ConnectionParameters("127.0.0.1", port))
    channel = connection.channel()
    channel.confirm_delivery()
    return connection, channel


def append(channel, entry: dict) -> None:
    channel.basic_publish("", STREAM, encode(entry), pika.BasicProperties(delivery_mode=2))  # raises unless confirmed


def read(port: int, until, limit: int = 10_000) -> Rule:
    """Apply the rule to the stream from its first entry, on the node at `port`, until `until(rule,
    entry)` says enough."""
    connection = pika.BlockingConnection(pika.ConnectionParameters("127.0.0.1", port))
    channel = connection.channel()
    channel.basic_qos(prefetch_count=200)
    rule = Rule()
    try:
        for method, _, body in channel.consume(STREAM, arguments={"x-stream-offset": "first"},
                                               inactivity_timeout=30):
            assert method is not None, "the stream went quiet before the reader was done"
            entry = decode(body)
            rule.apply(entry)
            channel.basic_ack(method.delivery_tag)  # a stream consumer acks, never nacks
            if until(rule, entry) or rule.rejected + len(rule.accepted) > limit:
                return rule
    finally:
        try:
            connection.close()
        except Exception:  # 540 NOT_IMPLEMENTED: closing rejects prefetched deliveries, which a stream refuses
            pass


def test_a_deposed_writer_is_rejected_by_every_reader(rabbit_cluster):
    connection, channel = channel_on(5701)
    channel.queue_declare(STREAM, durable=True, arguments={"x-queue-type": "stream"})
    append(channel, claim(1, "a"))
    a_sent, a_at_100, b_claimed = [], threading.Event(), threading.Event()

    def writer_a() -> None:  # never reads: it does not know it was deposed
        for rev in range(1, 401):
            append(channel, batch(1, "a", rev - 1, rev))
            a_sent.append(rev)
            if rev == 100:
                a_at_100.set()
                b_claimed.wait(30)
    a = threading.Thread(target=writer_a)
    a.start()
    assert a_at_100.wait(30)
    b_connection, b_channel = channel_on(5702)
    append(b_channel, claim(2, "b"))
    b_claimed.set()
    seen = read(5702, lambda rule, entry: entry["t"] == "claim" and entry["store"] == "b")
    start = seen.rev  # what b took over: a's last batch before b's claim
    for rev in range(start + 1, start + 101):
        append(b_channel, batch(2, "b", rev - 1, rev))
    a.join(60)
    total = 1 + 400 + 1 + 100
    readers = [read(port, lambda rule, _e: rule.rejected + len(rule.accepted) + 2 >= total)
               for port in (5701, 5702, 5703)]
    connection.close()
    b_connection.close()

    assert len({tuple(r.accepted) for r in readers}) == 1, "the readers disagree"
    history = readers[0]
    assert history.owner == "b" and history.rev == start + 100
    assert history.accepted == list(range(1, start + 101))  # b continued exactly where a was accepted
    assert len(a_sent) == 400 and history.rejected == 400 - start  # confirmed by the broker, not committed
    assert 100 <= start < 400
