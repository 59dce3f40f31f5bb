"""A broker node that goes silent with its TCP connections open (frozen, a paused VM, a cut link):
a connection leaves it for the next node `heartbeat + max(2, heartbeat / 2)` s after its last byte — pika's own check
takes `heartbeat + 5` s to twice that — and a graceful close that can never complete ends the same
way, and a close that a node never answers ends after CLOSE_WAIT_S whatever the heartbeat. A node
that went silent is passed over when the connection next moves. The silent node is a relay in front
of the test broker that stops passing bytes."""
from __future__ import annotations

import threading
import time

import pytest

from bus.connection import Bus
from bus.silence import CLOSE_WAIT_S, BrokerSilent, Dropped
from testkit.waiting import wait_until

pytestmark = pytest.mark.slow  # chaos: a broker node gone silent (make test-slow)

HEARTBEAT = 2  # pika's check runs every 7 s and needs a whole interval silent: 7-14 s; the watch 4-5 s
PIKA_AT_THE_EARLIEST = HEARTBEAT + 5


@pytest.fixture
def connect(relay):
    """connect(**kw): a Bus through the relay, stopped after the test."""
    made = []

    def connect(on_ready=lambda _bus: None, **kw) -> Bus:
        made.append(Bus(relay.urls, "test silent broker", "test", on_ready, **kw).start_thread())
        return made[-1]
    yield connect
    for bus in made:
        bus.stop()
        bus.join(10)


def test_a_silent_node_is_left_for_the_next_after_two_missed_heartbeats(relay, connect):
    lost = threading.Event()
    bus = connect(on_lost=lost.set, heartbeat=HEARTBEAT)
    assert f":{relay.port}/" in bus.node
    relay.freeze()
    frozen_at = time.monotonic()
    assert lost.wait(PIKA_AT_THE_EARLIEST), "the connection was not dropped before pika's own check would"
    assert isinstance(bus.lost_reason, BrokerSilent), bus.lost_reason
    assert time.monotonic() - frozen_at >= HEARTBEAT  # not before a whole heartbeat passed quiet
    wait_until(bus.ready.is_set, 15, what="a connection to the next node")
    assert f":{relay.port}/" not in bus.node
    bus.call_soon(bus.reconnect)  # round robin would try the silent node next
    wait_until(lambda: bus.generation == 3, 15, what="a third connection")
    assert relay.attempts == 1  # passed over


def test_a_close_the_node_never_answers_is_dropped_after_the_close_wait(relay, connect):
    bus = connect(heartbeat=60)
    relay.freeze()
    bus.stop()  # waits for a Close-Ok that the frozen node never sends
    bus.join(CLOSE_WAIT_S + 5)
    assert not bus._thread.is_alive(), "the close still waits"


def test_a_reconnect_drops_the_connection_at_once(relay, connect):
    """Something of the connection stopped answering (a stream, a queue's stale leader): the close
    would wait too, so a reconnect does not ask for one."""
    generations = []
    bus = connect(on_ready=lambda b: generations.append(b.node), heartbeat=60)
    relay.freeze()
    bus.call_soon(bus.reconnect)
    wait_until(lambda: len(generations) == 2, 15, what="a new connection")
    assert isinstance(bus.lost_reason, Dropped) and "reconnect asked for" in str(bus.lost_reason)
    assert f":{relay.port}/" not in generations[1]
