"""A node that takes the TCP connection but never answers AMQP (a frozen RabbitMQ node: its kernel
still accepts) costs a connection at most CONNECT_TIMEOUT_S before it moves to the next node."""
from __future__ import annotations

import socket
import time

import pytest

from bus.connection import CONNECT_TIMEOUT_S, Bus

pytestmark = pytest.mark.slow  # chaos: a broker node gone silent (make test-slow)


def test_a_silent_node_is_left_for_the_next_within_the_connect_timeout(settings):
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)  # accepted by the kernel, never read: no AMQP handshake ever comes back
    port = silent.getsockname()[1]
    real = settings.admin_url
    urls = f"{real.split('@')[0]}@127.0.0.1:{port}/,{real}"
    started = time.monotonic()
    bus = Bus(urls, "test silent node", "test", lambda _bus: None, heartbeat=5).start_thread(timeout=30)
    took = time.monotonic() - started
    bus.stop()
    bus.join(5)
    silent.close()
    assert took < CONNECT_TIMEOUT_S + 3, f"{took:.1f} s to reach the second node"  # pika's own: 15 s + backoff
