"""A bus told to stop ends its loop whatever state its connection is in — also while it is still
opening, where the close found nothing to close and the connection, once open, was handed to the
actor as ready: a drained actor then never exited (seen: a scheduler SIGKILLed 10 s after SIGTERM)."""
from __future__ import annotations

import threading

from bus.connection import Bus


def test_a_stop_while_the_connection_opens_ends_the_loop(settings):
    ready = []
    bus = Bus(settings.admin_url, "test stop while opening", "test", ready.append)
    connect = bus._connect

    def connect_then_stop() -> None:
        connect()
        bus._close()  # the connection has begun to open: neither open nor closed yet

    bus._connect = connect_then_stop
    loop = threading.Thread(target=bus.run_forever, daemon=True)
    loop.start()
    loop.join(10)
    alive = loop.is_alive()
    if alive:
        bus.stop()
        loop.join(5)
    assert not alive, "the loop went on after stop()"
    assert ready == [], "a stopped bus was handed over as ready"
