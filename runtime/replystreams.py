"""An actor's second connection, for the replies that should not share its own: big reads, sent a
slice at a time (neither a snapshot's encoding nor the broker's flow control on its megabytes holds
up the actor's other replies and events — bench.scale: a get during a 100k-pod snapshot waited up to
0.7 s behind it on the shared connection), and every reply to a node not trusted yet (bus/replyto.py:
such an address may make the broker drop the connection that answers it; a confirm trusts the node).
"""
from __future__ import annotations

from collections import deque
from typing import Iterator

from bus.connection import Bus
from bus.replyto import TrustedNodes

SLICE_BYTES = 1 << 20  # reply bytes sent per turn of the streams' loop
BACKLOG_BYTES = 1 << 20  # no further slice while this much is still waiting for the socket
WAIT_S = 0.002
RECONNECT_WAIT_S = 0.05

Stream = tuple[str, "str | None", Iterator[bytes]]  # reply_to, correlation_id, the reply's parts


class ReplyStreams:
    def __init__(self, url: str, heartbeat: int, actor: str, nodes: TrustedNodes):
        self.bus = Bus(url, f"{actor} replies", actor, lambda _bus: None, heartbeat=heartbeat)
        self.nodes = nodes
        self.pending: deque[Stream] = deque()
        self.scheduled = False
        self.started = False

    def start(self) -> None:
        """Connect on a thread of its own; what is added meanwhile waits for the connection."""
        if not self.started:
            self.bus.start_thread(timeout=None)
            self.started = True

    def stop(self) -> None:
        if self.started:
            self.bus.stop()

    def add(self, streams: list[Stream]) -> None:
        """From the actor's loop: the parts (stored objects never change, so they may be encoded on
        the streams' thread) are queued there, in one hand-over."""
        if streams:
            self.start()
            self.bus.call_soon(lambda: self._enqueue(streams))

    def _enqueue(self, streams: list[Stream]) -> None:
        self.pending.extend(streams)
        self._schedule()

    def _schedule(self, delay: float = 0.0) -> None:
        if not self.scheduled:
            self.scheduled = True
            self.bus.call_later(delay, self._run)

    def _run(self) -> None:
        """A slice, unless the socket still holds much of the last one."""
        self.scheduled = False
        if self.bus.channel is None:  # (re)connecting: what is still to send waits for the channel
            self._schedule(RECONNECT_WAIT_S)
            return
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
            self.bus.publish("", reply_to, part, type="reply", correlation_id=corr,
                             on_confirm=lambda ok, address=reply_to: ok and self.nodes.trust(address))
            sent += len(part)
        if self.pending:
            self._schedule()
