"""An actor's reply connection, for the replies that should not share its own: big reads, sent a
slice at a time (neither a snapshot's encoding nor the broker's flow control on its megabytes holds
up the actor's other replies and events — bench.scale: a get during a 100k-pod snapshot waited up to
0.7 s behind it on the shared connection), and every reply to a broker node not trusted yet
(bus/replyto.py: such an address may make the broker drop the connection that answers it; such nodes
are probed one at a time, and a confirm trusts the node). It runs on a thread of its own;
`TrustedNodes` is shared with the actor's thread.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Iterator

import structlog

from bus.connection import INTERNAL_ERROR, Bus
from bus.replyto import PROBE_WAIT_S, Probes, TrustedNodes

SLICE_BYTES = 1 << 20  # reply bytes sent per turn of the reply connection's loop
BACKLOG_BYTES = 1 << 20  # no further slice while this much is still waiting for the socket
WAIT_S = 0.002
RECONNECT_WAIT_S = 0.05
DRAIN_S = 5.0  # at most this long, on stopping, for what is queued to be sent and confirmed
log = structlog.get_logger("replies")


@dataclass
class Reply:
    reply_to: str
    correlation_id: str | None
    parts: Iterator[bytes]  # produced on the reply thread: what a big read encodes must not change meanwhile
    begun: bool = False


class ReplyConnection:
    def __init__(self, url: str, heartbeat: int, connection_name: str, actor: str, nodes: TrustedNodes):
        self.bus = Bus(url, f"{connection_name} replies", actor, lambda _bus: None, self._on_lost, heartbeat=heartbeat)
        self.queued = Probes(nodes)  # what waits to be sent
        self.current: Reply | None = None  # the reply being sent, part by part
        self.unconfirmed = 0
        self.scheduled = False
        self.started = False

    def start(self) -> None:
        """Connect on a thread of its own; what is added meanwhile waits for the connection."""
        if not self.started:
            self.bus.start_thread(timeout=None)
            self.started = True

    def add(self, replies: list[Reply]) -> None:
        """From the actor's loop, in one hand-over."""
        if replies:
            self.start()
            self.bus.call_soon(lambda: self._enqueue(replies))

    def stop(self, then: Callable[[], None]) -> None:
        """Send what is queued (for at most DRAIN_S), then close and call `then` (on the reply thread)."""
        if not self.started:
            then()
            return
        deadline = time.monotonic() + DRAIN_S
        self.bus.call_soon(lambda: self._stop_when_sent(deadline, then))

    def _stop_when_sent(self, deadline: float, then: Callable[[], None]) -> None:
        if (self.current or self.queued) and time.monotonic() < deadline:
            self.bus.call_later(RECONNECT_WAIT_S, lambda: self._stop_when_sent(deadline, then))
            return
        self.bus.confirmed(lambda: (self.bus.stop(), then()))

    def _enqueue(self, replies: list[Reply]) -> None:
        for reply in replies:
            self.queued.add(reply.reply_to, reply)
        self._schedule()

    def _confirmed(self, address: str, ok: bool) -> None:
        self.unconfirmed -= 1
        if ok:
            self.queued.confirmed(address)
        self._schedule()

    def _on_lost(self) -> None:
        """A reply of several parts that lost some with the connection would reach its caller with a hole:
        it goes, and the caller's retry asks again. A 541 was the probe's doing, if one was out."""
        if self.current is not None and self.current.begun:
            self.current = None
        self.queued.lost(getattr(self.bus.lost_reason, "reply_code", None) == INTERNAL_ERROR)
        self._schedule(RECONNECT_WAIT_S)

    def _probe_overdue(self) -> None:
        """A probe the broker neither confirmed nor refused in time holds the channel and every reply
        behind it: its node goes bad, and a new connection takes the rest."""
        node = self.queued.overdue()
        if node is not None and self.bus.channel is not None:
            log.warning("replies.probe_unanswered", node=node, waited_s=PROBE_WAIT_S)
            self.queued.give_up()
            self.bus.reconnect(f"a reply probe to {node} unanswered in {PROBE_WAIT_S:g} s")

    def _schedule(self, delay: float = 0.0) -> None:
        if not self.scheduled:
            self.scheduled = True
            self.bus.call_later(delay, self._run)

    def _run(self) -> None:
        """A slice, unless the socket still holds much of the last one."""
        self.scheduled = False
        if self.bus.channel is None:  # (re)connecting: what is still to send waits for the channel
            if self.current or self.queued:
                self._schedule(RECONNECT_WAIT_S)
            return
        if self.bus.unsent_bytes() > BACKLOG_BYTES:
            self._schedule(WAIT_S)
            return
        sent = 0
        while sent < SLICE_BYTES:
            if self.current is None:
                self.current = self.queued.take(self.unconfirmed)
                if self.current is None:
                    return  # a confirm or a new reply schedules the next run
                if self.queued.probe is not None:  # it is a probe
                    self.bus.call_later(PROBE_WAIT_S, self._probe_overdue)
            reply = self.current
            part = self._next_part(reply)
            if part is None:
                self.current = None
                continue
            reply.begun = True
            self.unconfirmed += 1
            self.bus.publish("", reply.reply_to, part, type="reply", correlation_id=reply.correlation_id,
                             user_id=self.bus.user,  # the caller believes only its responder's replies
                             on_confirm=lambda ok, address=reply.reply_to: self._confirmed(address, ok))
            sent += len(part)
        self._schedule()

    @staticmethod
    def _next_part(reply: Reply) -> bytes | None:
        """The reply's next part; None when it has no more, or when making it failed (logged: the caller
        times out rather than the reply thread dying)."""
        try:
            return next(reply.parts, None)
        except Exception:
            log.exception("replies.part_failed", correlation_id=reply.correlation_id)
            return None
