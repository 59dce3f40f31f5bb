"""The silence watch's rules, on a stand-in connection and clock: when a quiet connection is dropped
and when it is not."""
from __future__ import annotations

from bus.silence import CHECK_S, QUIET_S, BrokerSilent, Dropped, SilenceWatch

HEARTBEAT = 3


class Conn:
    def __init__(self):
        self.bytes_received, self.is_open, self.is_closing = 100, True, False
        self.dropped = None

    def _terminate_stream(self, error):
        self.dropped, self.is_open = error, False


class Loop:
    """call_later and a clock: `run(seconds)` fires what falls due, in order."""

    def __init__(self):
        self.now, self.timers = 0.0, []

    def call_later(self, delay, fn):
        self.timers.append((self.now + delay, len(self.timers), fn))

    def run(self, seconds: float, every=None):
        end = self.now + seconds
        while self.timers and min(self.timers)[0] <= end:
            self.timers.sort()
            at, _, fn = self.timers.pop(0)
            self.now = at
            if every:
                every()
            fn()
        self.now = end


def watched(loop: Loop, silent: list):
    conn, watch = Conn(), SilenceWatch("test", HEARTBEAT, loop.call_later, lambda: silent.append(1), clock=lambda: loop.now)
    watch.start()
    watch.watch(conn)
    return conn, watch


def test_a_connection_quiet_past_the_limit_is_dropped_and_its_node_shunned():
    loop, silent = Loop(), []
    conn, watch = watched(loop, silent)
    loop.run(watch.limit)
    assert conn.dropped is None  # quiet for the limit, not past it
    loop.run(CHECK_S + 0.5)
    assert isinstance(conn.dropped, BrokerSilent) and silent == [1]


def test_a_connection_quiet_for_a_whole_heartbeat_at_a_time_is_kept():
    loop, silent = Loop(), []
    conn, watch = watched(loop, silent)
    for _ in range(10):
        loop.run(HEARTBEAT)
        conn.bytes_received += 8  # the broker's heartbeat, a heartbeat after its last frame
    assert conn.dropped is None and silent == []


def test_a_byte_read_by_the_poll_after_the_check_saves_the_connection():
    loop, silent = Loop(), []
    conn, watch = watched(loop, silent)
    loop.timers.clear()
    loop.now = watch.limit + 0.5
    watch._check()  # finds the limit passed: confirms after the ioloop's next poll
    conn.bytes_received += 8  # that poll read what the socket held
    loop.run(0)
    assert conn.dropped is None and silent == []


def test_a_late_check_does_not_count_the_time_the_loop_was_busy():
    loop, silent = Loop(), []
    conn, watch = watched(loop, silent)
    loop.run(CHECK_S)
    loop.timers = [(loop.now + 10, 0, loop.timers[0][2])]  # a handler held the ioloop for 10 s
    loop.run(10 + CHECK_S)
    assert conn.dropped is None  # the silence counts from the late check
    loop.run(watch.limit + CHECK_S)
    assert isinstance(conn.dropped, BrokerSilent)


def test_a_reconnect_of_a_quiet_connection_counts_its_node_as_silent():
    """A publish unconfirmed or a stream stalled on a connection that has also heard nothing for
    QUIET_S: the node is the likely cause, so it is passed over (and its reply nodes forgotten)."""
    loop, silent = Loop(), []
    conn, watch = watched(loop, silent)
    loop.run(QUIET_S - 0.5)
    conn.bytes_received += 8
    loop.run(CHECK_S)
    watch.drop(conn, "a publish waits for its confirm")
    assert isinstance(conn.dropped, Dropped) and not isinstance(conn.dropped, BrokerSilent) and silent == []

    conn, watch = watched(loop, silent)
    loop.run(QUIET_S + CHECK_S)
    watch.drop(conn, "a publish waits for its confirm")
    assert isinstance(conn.dropped, BrokerSilent) and silent == [1]
