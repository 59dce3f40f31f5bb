"""Work done in short slices on the mailbox thread, so events keep flowing between them."""
from __future__ import annotations

import time
from typing import Callable

from bus.connection import Bus

SLICE_S = 0.02


class SlicedLoop:
    """`kick()` schedules a run; a run calls `step()` until it returns False or the slice is over,
    then comes back at once if `pending()` says so, else at `next_due()` (seconds, or None: never)."""

    def __init__(self, bus: Bus, step: Callable[[], bool], pending: Callable[[], bool],
                 next_due: Callable[[], float | None], enabled: Callable[[], bool] = lambda: True):
        self.bus, self.step, self.pending, self.next_due, self.enabled = bus, step, pending, next_due, enabled
        self._scheduled = False
        self._wake = None

    def kick(self) -> None:
        if self.enabled() and not self._scheduled:
            self._scheduled = True
            self.bus.call_later(0, self._run)

    def _run(self) -> None:
        self._scheduled = False
        deadline = time.monotonic() + SLICE_S
        while time.monotonic() < deadline and self.step():
            pass
        if self.pending():
            self.kick()
            return
        self.bus.cancel(self._wake)
        due = self.next_due()
        self._wake = self.bus.call_later(due, self.kick) if due is not None else None
