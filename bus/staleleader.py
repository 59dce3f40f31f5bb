"""RabbitMQ 3.10's quorum queues keep a stale leader in the queue record for a while after the
leader's node dies; a channel whose first publish goes there is nacked at once, or never confirmed,
for as long as it lives (scale-out.md E4, measured again here: every publish of such a channel
nacked for 75 s, while a channel opened a second later was confirmed; fixed in 3.11 by PR #9241).
On a cluster of quorum queues the guard therefore reopens the connection when a publish is nacked
or waits for its confirm longer than `STALL_S` — at most once every `MIN_GAP_S`, since a full
queue (overflow: reject-publish) nacks too. Pending calls fail and are retried with the same id."""
from __future__ import annotations

import time
from typing import Callable

import structlog

log = structlog.get_logger()
STALL_S = 2.5  # a confirm from a healthy quorum queue takes milliseconds
MIN_GAP_S = 5.0
CHECK_S = 1.0


class StaleLeaderGuard:
    def __init__(self, name: str, oldest_unconfirmed: Callable[[], float | None], reopen: Callable[[str], None],
                 call_later: Callable[[float, Callable[[], None]], object]):
        self.name = name
        self._oldest = oldest_unconfirmed
        self._reopen = reopen
        self._call_later = call_later
        self._last = 0.0

    def start(self) -> None:
        self._call_later(CHECK_S, self._check)

    def nacked(self) -> None:
        self._maybe_reopen("a publish was nacked")

    def _check(self) -> None:
        oldest = self._oldest()
        if oldest is not None and time.monotonic() - oldest > STALL_S:
            self._maybe_reopen(f"a publish waits for its confirm over {STALL_S:g}s")
        self._call_later(CHECK_S, self._check)

    def _maybe_reopen(self, why: str) -> None:
        now = time.monotonic()
        if now - self._last >= MIN_GAP_S:
            self._last = now
            log.warning("bus.reopen", connection=self.name, why=why,
                        hint="a quorum queue's stale leader (RabbitMQ < 3.11) or a full queue")
            self._reopen(f"stale leader? {why}")
