"""Which node of the cluster a connection tries next: the next in turn after a loss, passing over for
a while a node that went silent or would not take a connection — a frozen node accepts TCP and
answers nothing, so each turn on it costs the whole connect timeout — unless every node is passed over.
What one connection learns holds for every connection of the process (a store's reply connection
often sees its node go silent before the store's own connection moves)."""
from __future__ import annotations

import time
from typing import Callable

SHUN_S = 30.0  # longer than a silent node takes to be declared down and its queues to move (~7 s)


class Shunned:
    """Nodes passed over, by URL without credentials, until a time (one table per process)."""

    def __init__(self) -> None:
        self.until: dict[str, float] = {}

    def add(self, url: str, until: float) -> None:
        self.until[_node(url)] = until

    def passed_over(self, url: str, now: float) -> bool:
        return self.until.get(_node(url), 0.0) > now


PROCESS = Shunned()


def _node(url: str) -> str:
    return url.split("://", 1)[-1].rsplit("@", 1)[-1]


class Nodes:
    def __init__(self, urls: list[str], clock: Callable[[], float] = time.monotonic, shunned: Shunned = PROCESS):
        self.urls = urls
        self._clock = clock
        self._shunned = shunned
        self._at = 0

    @property
    def url(self) -> str:
        """The node in use now, or tried next."""
        return self.urls[self._at]

    def shun(self) -> None:
        """Pass over the current node for SHUN_S (it went silent, or refused or timed out a connection)."""
        self._shunned.add(self.url, self._clock() + SHUN_S)

    def settle(self) -> None:
        """Before an attempt: off the current node if it is passed over (a first connection, or a
        node another connection of the process found silent meanwhile)."""
        if self._shunned.passed_over(self.url, self._clock()):
            self.advance()

    def advance(self) -> None:
        """Move to the next node not passed over; to the next in turn when all are."""
        now = self._clock()
        turn = [(self._at + step) % len(self.urls) for step in range(1, len(self.urls) + 1)]
        self._at = next((i for i in turn if not self._shunned.passed_over(self.urls[i], now)), turn[0])
