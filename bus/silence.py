"""A broker node that stops answering — a frozen process, a paused VM, a cut link — leaves the TCP
connection open. pika notices only when its heartbeat check, run once per `heartbeat + 5` s, finds
that a whole interval passed without a byte: 8-16 s at a 3 s heartbeat, 35-70 s at 30 s. A graceful
close (a stale-leader reopen, a step-down) meanwhile waits for a Close-Ok that never comes.

The watch reads the connection's byte count every second and drops the socket once nothing came for
`heartbeat + 1` s: the broker sends a heartbeat every heartbeat/2 s when it has nothing else to
send, so that is two missed beats and one check of slack — the rule the broker applies to its side,
and passes the node over for a while (`bus.nodes`). A close that gets no Close-Ok within
CLOSE_WAIT_S is dropped the same way (a node busy moving the leaders of a frozen one's queues held
one for 5.7 s).
A check that comes late found the ioloop busy (a long handler): the socket was not read meanwhile,
so that silence is the actor's own and counts from then."""
from __future__ import annotations

import time
from typing import Callable

import structlog
from pika.exceptions import AMQPHeartbeatTimeout

log = structlog.get_logger("bus")
CHECK_S = 1.0
CLOSE_WAIT_S = 2.0  # a Close-Ok takes milliseconds


class SilenceWatch:
    def __init__(self, name: str, heartbeat: float, call_later: Callable[[float, Callable[[], None]], object],
                 on_silent: Callable[[], None] = lambda: None):
        self.name = name
        self._on_silent = on_silent
        self.limit = heartbeat + CHECK_S
        self._call_later = call_later
        self._conn = None
        self._bytes, self._heard_at = 0, 0.0
        self._checked_at = time.monotonic()

    def start(self) -> None:
        self._call_later(CHECK_S, self._check)

    def watch(self, conn) -> None:
        """Watch this connection from now on (one that opened)."""
        self._conn, self._bytes, self._heard_at = conn, conn.bytes_received, time.monotonic()

    def closing(self, conn) -> None:
        """A close of `conn` began: drop it if the broker has not answered it within CLOSE_WAIT_S."""
        self._call_later(CLOSE_WAIT_S, lambda: conn.is_closing and drop(conn, f"no Close-Ok in {CLOSE_WAIT_S:g} s"))

    def _check(self) -> None:
        conn, now = self._conn, time.monotonic()
        late, self._checked_at = now - self._checked_at > 2 * CHECK_S, now
        if conn is not None and (conn.is_open or conn.is_closing):
            if conn.bytes_received != self._bytes or late:
                self._bytes, self._heard_at = conn.bytes_received, now
            elif now - self._heard_at > self.limit:
                self._silent(conn, now - self._heard_at)
        self._call_later(CHECK_S, self._check)

    def _silent(self, conn, silent_s: float) -> None:
        log.warning("bus.broker_silent", connection=self.name, silent_s=round(silent_s, 1),
                    hint="the broker node is frozen, paused or cut off: trying the next node")
        self._conn = None
        self._on_silent()
        drop(conn, f"no byte from the broker in {silent_s:.1f} s (heartbeat {self.limit - CHECK_S:g} s)")


def drop(conn, why: str) -> None:
    """End the connection without the Close/Close-Ok exchange, as pika's own heartbeat check does."""
    conn._terminate_stream(AMQPHeartbeatTimeout(why))
