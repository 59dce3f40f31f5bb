"""Big reads leave a slice at a time: a list or snapshot of many objects is sent in parts between
the store's other work, so a cold resync of a large cache does not stall writes."""
from __future__ import annotations

from collections import deque
from typing import Iterator

from bus.connection import Bus

SLICE_BYTES = 1 << 20  # reply bytes sent per turn of the mailbox before other work gets its turn
BACKLOG_BYTES = 1 << 20  # no further slice while this much is still waiting for the socket
WAIT_S = 0.002


class ReplyStreams:
    def __init__(self, bus: Bus):
        self.bus = bus
        self.pending: deque[tuple[str, str | None, Iterator[bytes]]] = deque()
        self.scheduled = False

    def add(self, reply_to: str, correlation_id: str | None, parts: Iterator[bytes]) -> None:
        self.pending.append((reply_to, correlation_id, parts))
        self._schedule()

    def _schedule(self, delay: float = 0.0) -> None:
        if not self.scheduled:
            self.scheduled = True
            self.bus.call_later(delay, self._run)

    def _run(self) -> None:
        """A slice, unless the socket still holds much of the last one: what else the store sends
        (a get's reply, an event) must not queue behind megabytes of snapshot."""
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
