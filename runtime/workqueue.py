"""A per-key work queue in client-go's manner: a key is never handed out twice at once, adding a
queued key again collapses, and a failing key backs off on its own. Time is injected."""
from __future__ import annotations

import heapq
from collections import deque
from typing import Callable, Hashable

from runtime.metrics import WORKQUEUE_ADDS, WORKQUEUE_DEPTH

Key = Hashable


class WorkQueue:
    def __init__(self, clock: Callable[[], float], base_delay: float = 0.005, max_delay: float = 1000.0,
                 name: str = ""):
        self.clock = clock
        self.base_delay = base_delay
        self.max_delay = max_delay
        self._ready: deque[Key] = deque()
        self._queued: set[Key] = set()  # in _ready, or waiting to be (dirty while processing)
        self._processing: set[Key] = set()
        self._dirty: set[Key] = set()  # added again while being processed
        self._delayed: list[tuple[float, int, Key]] = []
        self._seq = 0
        self._failures: dict[Key, int] = {}
        self._answer_failed: set[Key] = set()  # retried because a write failed after its pass succeeded
        self._adds = WORKQUEUE_ADDS.labels(name)
        WORKQUEUE_DEPTH.labels(name).set_function(self._depth)  # read when scraped: the newest queue of a name

    def __len__(self) -> int:
        return len(self._ready)

    def add(self, key: Key) -> None:
        """As client-go counts: an add that queues the key, or marks it to run again, is an add."""
        if key in self._processing:
            if key not in self._dirty:
                self._adds.inc()
                self._dirty.add(key)
        elif key not in self._queued:
            self._adds.inc()
            self._push(key)

    def _push(self, key: Key) -> None:
        self._queued.add(key)
        self._ready.append(key)

    def _depth(self) -> int:
        """Keys ready, and keys to run again once their pass ends (the scrape thread reads only lengths)."""
        return len(self._ready) + len(self._dirty)

    def add_after(self, key: Key, delay: float) -> None:
        if delay <= 0:
            self.add(key)
            return
        self._seq += 1
        heapq.heappush(self._delayed, (self.clock() + delay, self._seq, key))

    def add_rate_limited(self, key: Key) -> float:
        """Requeue after the key's own exponential backoff; returns the delay."""
        failures = self._failures.get(key, 0)
        self._failures[key] = failures + 1
        delay = min(self.base_delay * (2 ** failures), self.max_delay)
        self.add_after(key, delay)
        return delay

    def forget(self, key: Key) -> None:
        """The key succeeded: its backoff starts over."""
        self._failures.pop(key, None)

    def retry_after_failed_write(self, key: Key) -> float:
        """A write a pass made (answered after the pass returned) failed: back off, and do not let
        the next pass's return count as success — only a pass whose writes raised no retry does.
        Else a write the apiserver always refuses is retried at the base delay for ever."""
        self._answer_failed.add(key)
        return self.add_rate_limited(key)

    def passed(self, key: Key) -> None:
        """A pass over the key returned without error."""
        if key in self._answer_failed:
            self._answer_failed.discard(key)
        else:
            self.forget(key)

    def get(self) -> Key | None:
        """The next ready key, marked as processing; None when nothing is ready now."""
        self._promote()
        if not self._ready:
            return None
        key = self._ready.popleft()
        self._queued.discard(key)
        self._processing.add(key)
        return key

    def done(self, key: Key) -> None:
        self._processing.discard(key)
        if key in self._dirty:
            self._dirty.discard(key)
            self._push(key)

    def next_due(self) -> float | None:
        """Seconds until the earliest delayed key is due (None if none waits)."""
        if not self._delayed:
            return None
        return max(0.0, self._delayed[0][0] - self.clock())

    def _promote(self) -> None:
        now = self.clock()
        while self._delayed and self._delayed[0][0] <= now:
            _, _, key = heapq.heappop(self._delayed)
            self.add(key)
