"""Big reads leave a slice at a time, on a connection of their own: a list or snapshot of many
objects is sent in parts from a second connection's thread, so neither its encoding nor the broker's
flow control on its megabytes holds up the store's other replies and events (bench.scale: a get
during a 100k-pod snapshot waited up to 0.7 s behind it on the shared connection)."""
from __future__ import annotations

from collections import deque
from typing import Iterator

from bus.connection import Bus

SLICE_BYTES = 1 << 20  # reply bytes sent per turn of the streams' loop
BACKLOG_BYTES = 1 << 20  # no further slice while this much is still waiting for the socket
WAIT_S = 0.002


class ReplyStreams:
    def __init__(self, url: str, heartbeat: int):
        self.bus = Bus(url, "store streams", "store", lambda _bus: None, heartbeat=heartbeat)
        self.pending: deque[tuple[str, str | None, Iterator[bytes]]] = deque()
        self.scheduled = False
        self.started = False

    def start(self) -> None:
        if not self.started:
            self.bus.start_thread()
            self.started = True

    def stop(self) -> None:
        if self.started:
            self.bus.stop()

    def add(self, reply_to: str, correlation_id: str | None, parts: Iterator[bytes]) -> None:
        """From the store's loop: the parts (stored objects never change, so they may be encoded on
        the streams' thread) are queued there."""
        self.bus.call_soon(lambda: self._enqueue((reply_to, correlation_id, parts)))

    def _enqueue(self, stream: tuple[str, str | None, Iterator[bytes]]) -> None:
        self.pending.append(stream)
        self._schedule()

    def _schedule(self, delay: float = 0.0) -> None:
        if not self.scheduled:
            self.scheduled = True
            self.bus.call_later(delay, self._run)

    def _run(self) -> None:
        """A slice, unless the socket still holds much of the last one."""
        self.scheduled = False
        if self.bus.unsent_bytes() > BACKLOG_BYTES:
            self._schedule(WAIT_S)
            return
        sent = 0
        while self.pending and sent < SLICE_BYTES:
            reply_to, corr, parts = self.pending[0]
            part = next(parts, None)
            if part is None:
                self.pending.popleft()
                continue
            self.bus.publish("", reply_to, part, type="reply", correlation_id=corr)
            sent += len(part)
        if self.pending:
            self._schedule()
