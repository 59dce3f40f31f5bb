"""A reply probe the broker neither confirms nor refuses: RabbitMQ holds the channel, and every reply
behind the probe with it, until it counts the probe's node down (11 s in a frozen-node run, then
541). The reply connection gives the probe up after PROBE_WAIT_S, marks its node bad and reconnects,
so what comes after goes on. The unanswering broker is a relay that stops passing what the reply
connection sends; the broker's heartbeats still arrive, so nothing else would end the connection."""
from __future__ import annotations

import time

import pytest

from bus.replyto import BAD_S, PROBE_WAIT_S, TrustedNodes, node_of
from bus.silence import Dropped
from runtime.replies import Reply, ReplyConnection
from testkit.waiting import wait_until
from tests.helpers import reply_address

pytestmark = pytest.mark.slow  # chaos: a broker node gone silent (make test-slow)


@pytest.fixture
def replies(relay):
    connection = ReplyConnection(relay.urls, 60, "test probe", "test", TrustedNodes())
    connection.start()
    yield connection
    connection.bus.stop()
    connection.bus.join(10)


def test_a_probe_left_unanswered_is_given_up_and_the_connection_reopened(relay, replies, settings):
    wait_until(replies.bus.ready.is_set, 15, what="the reply connection, through the relay")
    assert f":{relay.port}/" in replies.bus.node
    address = reply_address(settings.admin_url)
    relay.hold_requests()
    held_at = time.monotonic()
    replies.add([Reply(address, "1", iter([b"probe"])), Reply(address, "2", iter([b"next"]))])
    wait_until(lambda: replies.bus.generation == 2 and replies.bus.ready.is_set(), PROBE_WAIT_S + 10,
               what="a new reply connection")
    assert time.monotonic() - held_at >= PROBE_WAIT_S
    assert isinstance(replies.bus.lost_reason, Dropped) and "probe" in str(replies.bus.lost_reason)
    assert f":{relay.port}/" not in replies.bus.node
    assert replies.queued.bad == {node_of(address): pytest.approx(held_at + PROBE_WAIT_S + BAD_S, abs=1.5)}
    assert not replies.queued and replies.current is None  # the probe's node's other reply was dropped
