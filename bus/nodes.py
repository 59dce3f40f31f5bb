"""Which node of the cluster a connection tries next: the next in turn after a loss, passing over for
a while a node that went silent or would not take a connection — a frozen node accepts TCP and
answers nothing, so each turn on it costs the whole connect timeout — unless every node is passed over."""
from __future__ import annotations

import time
from typing import Callable

SHUN_S = 30.0  # longer than a silent node takes to be declared down and its queues to move (~7 s)


class Nodes:
    def __init__(self, urls: list[str], clock: Callable[[], float] = time.monotonic):
        self.urls = urls
        self._clock = clock
        self._at = 0
        self._shunned: dict[int, float] = {}  # node index -> until (time.monotonic())

    @property
    def url(self) -> str:
        """The node in use now, or tried next."""
        return self.urls[self._at]

    def shun(self) -> None:
        """Pass over the current node for SHUN_S (it went silent, or refused or timed out a connection)."""
        self._shunned[self._at] = self._clock() + SHUN_S

    def advance(self) -> None:
        """Move to the next node not passed over; to the next in turn when all are."""
        now = self._clock()
        turn = [(self._at + step) % len(self.urls) for step in range(1, len(self.urls) + 1)]
        self._at = next((i for i in turn if self._shunned.get(i, 0.0) <= now), turn[0])
