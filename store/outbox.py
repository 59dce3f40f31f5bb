"""The store's outbox: events leave in revision order with confirms; the confirmed revision
advances only over a contiguous run, so a restart republishes from the first unconfirmed one.

An event the broker will not take never wedges it: one over the message limit, one whose publish
raises, or one nacked `MAX_STRIKES` times is handed to `skip` (which dead-letters it with the
reason) and counts as confirmed. A channel that dies is no strike: that is a reconnect."""
from __future__ import annotations

from collections import deque
from typing import Callable, Iterator

import structlog

from bus import codec
from bus.connection import Bus

MAX_STRIKES = 3
RUN_ENVELOPE = 1024  # an event batch's own bytes beside its events
log = structlog.get_logger("store.outbox")

Skip = Callable[[int, str, bytes, str], None]  # last rev, routing key, message body, reason
Item = tuple[int, str, "str | None", bytes]  # rev, routing key, from, the event


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
        items = [(row.rev, row.key, row.from_key, row.event) for row in rows]
        self.publish_all(items)
        return len(items)

    def publish_all(self, items: list[Item]) -> None:
        """Events in revision order, as wire v2's batches: one message per run of consecutive events
        that share a routing key and `from`, within the message limit."""
        for run in runs(items, self.max_bytes - RUN_ENVELOPE):
            self.publish(run)

    def publish(self, run: list[Item]) -> None:
        revs = [rev for rev, _, _, _ in run]
        _, key, from_key, _ = run[0]
        self._inflight.extend(revs)
        body = codec.pack_array([item[3] for item in run])
        if len(body) > self.max_bytes:
            self._give_up(revs, key, body, f"{len(body)} bytes, over the message limit of {self.max_bytes}")
            return
        try:
            sent = self.bus.publish(self.exchange, key, body, type="event", cc=[from_key] if from_key else None,
                                    mandatory=True, user_id=self.bus.user, on_confirm=lambda ok: self._confirm(revs, key, body, ok))
        except Exception as exc:  # pika refused to frame it
            self._give_up(revs, key, body, f"publishing raised {type(exc).__name__}: {exc}")
            return
        if sent:
            self.published = revs[-1]

    def _confirm(self, revs: list[int], key: str, body: bytes, ok: bool) -> None:
        if ok:
            self._done(revs)
            return
        if self.bus.channel is None:
            self.failed = True  # the channel died: republish from `confirmed` after the reconnect
            return
        strikes = self.strikes[revs[0]] = self.strikes.get(revs[0], 0) + 1
        if strikes >= MAX_STRIKES:
            self._give_up(revs, key, body, f"the broker refused the event {MAX_STRIKES} times")
        else:
            self.failed = True

    def _give_up(self, revs: list[int], key: str, body: bytes, why: str) -> None:
        log.error("outbox.event_skipped", revs=f"{revs[0]}..{revs[-1]}", routing_key=key, why=why)
        self.strikes.pop(revs[0], None)
        self.skip(revs[-1], key, body, why)
        self.published = max(self.published, revs[-1])
        self._done(revs)

    def _done(self, revs: list[int]) -> None:
        self._acked.update(revs)
        while self._inflight and self._inflight[0] in self._acked:
            done = self._inflight.popleft()
            self._acked.discard(done)
            self.confirmed = max(self.confirmed, done)

    def caught_up(self, rev: int) -> bool:
        return not self.failed and self.published >= rev


def runs(items: list[Item], limit: int) -> Iterator[list[Item]]:
    """Consecutive items that share routing key and `from`, at most `limit` bytes of events each.
    (k1, k2, k1) is three runs: every queue still receives revisions in order."""
    run: list[Item] = []
    size = 0
    for item in items:
        if run and ((item[1], item[2]) != (run[0][1], run[0][2]) or size + len(item[3]) > limit):
            yield run
            run, size = [], 0
        run.append(item)
        size += len(item[3])
    if run:
        yield run
