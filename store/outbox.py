"""The store's outbox: events leave in revision order with confirms; the confirmed revision
advances only over a contiguous run, so a restart republishes from the first unconfirmed one.

An event the broker will not take never wedges it: one over the message limit, one whose publish
raises, or one nacked `MAX_STRIKES` times is handed to `skip` (which dead-letters it with the
reason) and counts as confirmed. A channel that dies is no strike: that is a reconnect."""
from __future__ import annotations

from collections import deque
from typing import Callable

import structlog

from bus.connection import Bus

MAX_STRIKES = 3
log = structlog.get_logger("store.outbox")

Skip = Callable[[int, str, bytes, str], None]  # rev, routing key, event, reason


class Outbox:
    def __init__(self, bus: Bus, exchange: str, confirmed: int, max_bytes: int = 1 << 20,
                 skip: Skip = lambda rev, key, raw, why: None):
        self.bus = bus
        self.exchange = exchange
        self.max_bytes = max_bytes
        self.skip = skip
        self.strikes: dict[int, int] = {}
        self.reset(confirmed)

    def reset(self, confirmed: int) -> None:
        self.confirmed = confirmed  # every event up to here is confirmed by the broker
        self.published = confirmed  # every event up to here was handed to the channel
        self._inflight: deque[int] = deque()
        self._acked: set[int] = set()
        self.failed = False

    def restart(self, rows) -> int:
        """Republish every logged event after the confirmed revision (after a reconnect or takeover)."""
        self.reset(self.confirmed)
        count = 0
        for row in rows:
            self.publish(row.rev, row.key, row.from_key, row.event)
            count += 1
        return count

    def publish(self, rev: int, key: str, from_key: str | None, raw: bytes) -> None:
        self._inflight.append(rev)
        if len(raw) > self.max_bytes:
            self._give_up(rev, key, raw, f"the event has {len(raw)} bytes, over the message limit of {self.max_bytes}")
            return
        try:
            sent = self.bus.publish(self.exchange, key, raw, type="event", cc=[from_key] if from_key else None,
                                    mandatory=True, on_confirm=lambda ok: self._confirm(rev, key, raw, ok))
        except Exception as exc:  # pika refused to frame it
            self._give_up(rev, key, raw, f"publishing raised {type(exc).__name__}: {exc}")
            return
        if sent:
            self.published = rev

    def _confirm(self, rev: int, key: str, raw: bytes, ok: bool) -> None:
        if ok:
            self._done(rev)
            return
        if self.bus.channel is None:
            self.failed = True  # the channel died: republish from `confirmed` after the reconnect
            return
        self.strikes[rev] = self.strikes.get(rev, 0) + 1
        if self.strikes[rev] >= MAX_STRIKES:
            self._give_up(rev, key, raw, f"the broker refused the event {MAX_STRIKES} times")
        else:
            self.failed = True

    def _give_up(self, rev: int, key: str, raw: bytes, why: str) -> None:
        log.error("outbox.event_skipped", rev=rev, routing_key=key, why=why)
        self.strikes.pop(rev, None)
        self.skip(rev, key, raw, why)
        self.published = max(self.published, rev)
        self._done(rev)

    def _done(self, rev: int) -> None:
        self._acked.add(rev)
        while self._inflight and self._inflight[0] in self._acked:
            done = self._inflight.popleft()
            self._acked.discard(done)
            self.confirmed = max(self.confirmed, done)

    def caught_up(self, rev: int) -> bool:
        return not self.failed and self.published >= rev
