"""The store's outbox: events leave in revision order with confirms; the confirmed revision
advances only over a contiguous run, so a restart republishes from the first unconfirmed one."""
from __future__ import annotations

from collections import deque
from typing import Callable

from bus.connection import Bus


class Outbox:
    def __init__(self, bus: Bus, exchange: str, confirmed: int):
        self.bus = bus
        self.exchange = exchange
        self.confirmed = confirmed  # every event up to here is confirmed by the broker
        self.published = confirmed  # every event up to here was handed to the channel
        self._inflight: deque[int] = deque()
        self._acked: set[int] = set()
        self.failed = False

    def restart(self, rows, on_publish: Callable[[int], None] = lambda rev: None) -> int:
        """Republish every logged event after the confirmed revision (after a reconnect or takeover)."""
        self._inflight.clear()
        self._acked.clear()
        self.failed = False
        self.published = self.confirmed
        count = 0
        for row in rows:
            self.publish(row.rev, row.key, row.from_key, row.event)
            count += 1
        return count

    def publish(self, rev: int, key: str, from_key: str | None, raw: bytes) -> None:
        self._inflight.append(rev)
        sent = self.bus.publish(self.exchange, key, raw, type="event", cc=[from_key] if from_key else None,
                                mandatory=True, on_confirm=lambda ok: self._confirm(rev, ok))
        if sent:
            self.published = rev

    def _confirm(self, rev: int, ok: bool) -> None:
        if not ok:
            self.failed = True  # a nack or a lost channel: republish from `confirmed`
            return
        self._acked.add(rev)
        while self._inflight and self._inflight[0] in self._acked:
            done = self._inflight.popleft()
            self._acked.discard(done)
            self.confirmed = max(self.confirmed, done)

    def caught_up(self, rev: int) -> bool:
        return not self.failed and self.published >= rev
