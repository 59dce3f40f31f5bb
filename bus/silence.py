"""A broker node that stops answering — a frozen process, a paused VM, a cut link — leaves the TCP
connection open. pika notices only when its heartbeat check, run once per `heartbeat + 5` s, finds
that a whole interval passed without a byte: 8-16 s at a 3 s heartbeat, 35-70 s at 30 s. A graceful
close (a stale-leader reopen, a step-down) meanwhile waits for a Close-Ok that never comes.

The watch reads the connection's byte count every second. The broker checks every heartbeat/2 s
and sends a heartbeat only if it sent nothing since its last check, so a healthy connection can be
quiet for a whole heartbeat; one quiet for `heartbeat + max(2, heartbeat / 2)` s is dropped — once
a poll of the socket since the check has brought nothing either — and its node passed over for a
while (`bus.nodes`). A check that comes late found the ioloop busy (a long handler): the socket was
not read meanwhile, so that silence is the actor's own and counts from then. A close that gets no
Close-Ok within CLOSE_WAIT_S is dropped too (a node busy moving the leaders of a frozen one's
queues held one for 5.7 s). A connection dropped for another reason (a publish unconfirmed, a
stream stalled) after QUIET_S without a byte counts as silent too: its node is the likely cause."""
from __future__ import annotations

import time
from typing import Callable

import structlog
from pika.exceptions import AMQPConnectionError, AMQPHeartbeatTimeout

log = structlog.get_logger("bus")
CHECK_S = 1.0
CLOSE_WAIT_S = 2.0  # a Close-Ok takes milliseconds
QUIET_S = 2.0  # quiet this long while a reconnect was asked for: the node, not the queue


class BrokerSilent(AMQPHeartbeatTimeout):
    """Why a connection ended: its node sent nothing for too long."""


class Dropped(AMQPConnectionError):
    """Why a connection ended: this side dropped it (a reconnect, an unanswered close)."""


def went_silent(reason: BaseException | None) -> bool:
    """The connection ended because its node went silent (this watch's or pika's own heartbeat check)."""
    return isinstance(reason, AMQPHeartbeatTimeout)


class SilenceWatch:
    def __init__(self, name: str, heartbeat: float, call_later: Callable[[float, Callable[[], None]], object],
                 on_silent: Callable[[], None] = lambda: None, clock: Callable[[], float] = time.monotonic):
        self.name = name
        self._on_silent = on_silent
        self.limit = heartbeat + max(2.0, heartbeat / 2)
        self._call_later = call_later
        self._clock = clock
        self._conn = None
        self._bytes, self._heard_at = 0, 0.0
        self._checked_at = clock()

    def start(self) -> None:
        self._call_later(CHECK_S, self._check)

    def watch(self, conn) -> None:
        """Watch this connection from now on (one that opened)."""
        self._conn, self._bytes, self._heard_at = conn, conn.bytes_received, self._clock()

    def closing(self, conn) -> None:
        """A close of `conn` began: drop it if the broker has not answered it within CLOSE_WAIT_S."""
        self._call_later(CLOSE_WAIT_S, lambda: self._unanswered(conn))

    def drop(self, conn, why: str) -> None:
        """Drop `conn` because something of it stopped answering; as silent if it has been quiet."""
        quiet_s = self._clock() - self._heard_at
        if self._live(conn) and conn.bytes_received == self._bytes and quiet_s >= QUIET_S:
            self._silent(conn, f"{why}, and no byte from the broker in {quiet_s:.1f} s")
        else:
            _terminate(conn, Dropped(why))

    def _unanswered(self, conn) -> None:
        if conn.is_closing:
            _terminate(conn, Dropped(f"no Close-Ok in {CLOSE_WAIT_S:g} s"))

    def _check(self) -> None:
        conn, now = self._conn, self._clock()
        late, self._checked_at = now - self._checked_at > 2 * CHECK_S, now
        if self._live(conn):
            if conn.bytes_received != self._bytes or late:
                self._bytes, self._heard_at = conn.bytes_received, now
            elif now - self._heard_at > self.limit:
                self._call_later(0, lambda: self._confirm(conn))  # runs after the ioloop's next poll
        self._call_later(CHECK_S, self._check)

    def _live(self, conn) -> bool:
        return conn is not None and conn is self._conn and (conn.is_open or conn.is_closing)

    def _confirm(self, conn) -> None:
        if self._live(conn) and conn.bytes_received == self._bytes:
            silent_s = self._clock() - self._heard_at
            self._silent(conn, f"no byte from the broker in {silent_s:.1f} s (limit {self.limit:g} s)")

    def _silent(self, conn, why: str) -> None:
        log.warning("bus.broker_silent", connection=self.name, why=why,
                    hint="the broker node is frozen, paused or cut off: trying the next node")
        self._conn = None
        self._on_silent()
        _terminate(conn, BrokerSilent(why))


def _terminate(conn, why: AMQPConnectionError) -> None:
    """End the connection without the Close/Close-Ok exchange, as pika's own heartbeat check does."""
    conn._terminate_stream(why)
