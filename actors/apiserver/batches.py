"""Admitted commands leave for the store as wire v2 `commands` batches: what the apiserver admits
in one turn of its mailbox goes out in messages of at most `BATCH_COMMANDS` commands (and the
message limit), each command with its requester's identity, message id, reply address and deadline.
The requests are acked once the broker has the batch. A batch with audited commands names this
apiserver's reply address, for the store to say how each ended (`outcomes.py`).

A full batch leaves at once, mid-turn: with 64 writers in flight, one batch per turn made every
stage (client, apiserver, store) handle all 64 before the next could start, so the stages took
turns instead of overlapping (bench.store: 40% of the CPU idle, a cycle of ~40 ms). A batch not
full leaves when the turn ends, or a few milliseconds later when more commands are likely to join
it (`linger.py`).
"""
from __future__ import annotations

import time
from typing import Any, Callable

from actors.apiserver.linger import AIM, Linger
from actors.apiserver.outcomes import Outcome, Outcomes
from bus import codec
from bus.connection import Bus
from bus.message import Message
from bus.replyto import DIRECT

BATCH_ENVELOPE = 1024  # the batch's own bytes beside its commands
BATCH_COMMANDS = 32  # bench.store, 64 writers: 32 took 10% less CPU a write than 16 (docs/benchmarks.md)


class CommandBatches:
    def __init__(self, bus: Bus, exchange: str, max_bytes: int, persistent: bool,
                 on_full: Callable[[list[Message]], None], outcomes: Outcomes | None = None):
        self.bus, self.exchange, self.persistent, self.on_full = bus, exchange, persistent, on_full
        self.outcomes = outcomes  # None: no auditing, no outcomes asked
        self.limit = max_bytes - BATCH_ENVELOPE
        self.pending: list[tuple[Message, bytes, Outcome | None, float | None]] = []
        self.size = 0
        self.linger = Linger()
        self.timer = None  # the pending batch's flush, once it has one
        self.holding = False  # ... and it waits for company

    def add(self, msg: Message, command: dict[str, Any], outcome: Outcome | None = None) -> None:
        """`outcome`, if given, records how the command ended once the store says."""
        expires = time.time() + msg.expiration_s if msg.expiration_s else None
        entry = codec.encode({"id": msg.message_id, "user": msg.user_id, "reply_to": msg.reply_to,
                              "correlation_id": msg.correlation_id, "command": command, "expires": expires})
        sender = _sender(msg)
        self.linger.arrived(sender)
        if self.pending and self.size + len(entry) > self.limit:
            self.flush()
        self.pending.append((msg, entry, outcome, expires))
        self.size += len(entry)
        if len(self.pending) >= BATCH_COMMANDS:
            self.flush()
            self.bus.push()
        elif self.timer is None:
            self._leave_in(self.linger.hold(sender))
        elif self.holding and len(self.pending) >= AIM:  # company enough: no more waiting
            self._leave_in(0)

    def _leave_in(self, seconds: float) -> None:
        """The pending batch leaves after `seconds`; 0: when this turn ends."""
        self.bus.cancel(self.timer)
        self.holding = seconds > 0
        self.timer = self.bus.call_later(seconds, self._held)

    def _held(self) -> None:
        self.timer = None
        self.flush()

    def flush(self) -> None:
        self.bus.cancel(self.timer)
        self.timer = None
        if not self.pending:
            return
        batch, self.pending, self.size = self.pending, [], 0
        requests = [msg for msg, *_ in batch]
        corr = self.outcomes.expect([b[2] for b in batch], [b[3] for b in batch]) if self.outcomes else None
        self.bus.publish(self.exchange, "store", codec.pack_array([b[1] for b in batch]), type="commands",
                         persistent=self.persistent, user_id=self.bus.user, correlation_id=corr,
                         reply_to=DIRECT if corr else None, on_confirm=lambda ok: self._confirmed(requests, ok, corr))

    def drop(self) -> None:
        """The channel went: the pending commands' requests are redelivered, to be admitted again."""
        self.bus.cancel(self.timer)
        for msg, *_ in self.pending:
            self.linger.left(_sender(msg))
        self.timer, self.pending, self.size = None, [], 0

    def _confirmed(self, requests: list[Message], ok: bool, corr: str | None) -> None:
        """Acked once the broker has the batch. A nack: the store's queue is full (the requests are
        answered so, and audited then). A lost channel: the requests are redelivered, and the store's
        dedupe keeps each to one effect."""
        for msg in requests:
            self.linger.left(_sender(msg))
        if ok:
            for msg in requests:
                msg.ack()
            return
        if self.outcomes:
            self.outcomes.forget(corr)
        if self.bus.channel is not None:
            self.on_full(requests)


def _sender(msg: Message) -> tuple[str | None, str | None]:
    """Who a request is from, as far as holding goes: its broker user and its reply address."""
    return msg.user_id, msg.reply_to
