"""Joined acks on the real broker: what was acked is gone, a delivery still held when the connection
drops comes back, whatever order they were settled in."""
from __future__ import annotations

import uuid
from concurrent.futures import Future

from bus.connection import Bus
from bus.testkit import blocking
from testkit.waiting import wait_until


def test_acks_joined_in_a_turn_never_cover_a_held_delivery(settings):
    admin = blocking(settings.admin_url).channel()
    queue = admin.queue_declare(f"{settings.cluster}.acks.{uuid.uuid4().hex[:8]}").method.queue
    for body in (b"1", b"2", b"3", b"4"):
        admin.basic_publish("", queue, body)
    bus = Bus(settings.admin_url, "test acks", "test", lambda _bus: None).start_thread()
    got = {}
    bus.call_soon(lambda: bus.consume(queue, lambda msg: got.setdefault(msg.raw, msg), prefetch=10))
    wait_until(lambda: len(got) == 4, 10, what="four deliveries")
    acked = Future()
    bus.call_soon(lambda: acked.set_result([got[body].ack() for body in (b"3", b"1", b"4")]))  # one turn; "2" held
    acked.result(10)
    wait_until(lambda: not bus._acks_due, 10, what="the turn's acks to leave")
    bus.stop()
    bus.join(5)
    left = wait_until(lambda: admin.queue_declare(queue, passive=True).method.message_count, 10,
                      what="the held delivery back in the queue")
    method, _props, body = admin.basic_get(queue, auto_ack=True)
    admin.queue_delete(queue)
    admin.connection.close()
    assert (left, body, method.redelivered) == (1, b"2", True)

