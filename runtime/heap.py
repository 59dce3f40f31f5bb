"""Large heaps and the cyclic garbage collector. A store or cache holding 100,000 objects pays a
full collection of 1–2 s every few tens of thousands of allocations, scanning objects that live
as long as the process (measured by bench.scale: 2.2 s of a 4.9 s cold resync, 2.3 s of a load).
Objects known to be long-lived are frozen out of the collector's way, and the young generation is
collected every YOUNG_EVERY allocations instead of CPython's 700."""
from __future__ import annotations

import gc
import time
from typing import Any, Callable

THAW_EVERY_S = 300.0
# Container allocations (net of frees) between young collections. At CPython's 700, a process that
# answers thousands of messages a second collects its young generation hundreds of times a second,
# catching each message's short-lived dicts and lists alive and carrying them into older
# generations to be scanned again: bench.startup at 5,000 nodes measured 20-30% of the store's,
# the scheduler's and the kubelet's CPU in the collector. At 50,000 most of them are freed by
# reference counting before any collection sees them; a young collection of a growing cache then
# scans up to 50,000 objects (tens of ms), and garbage cycles wait a little longer to go.
YOUNG_EVERY = 50_000


def freeze_survivors(generation: int = 2) -> None:
    """Collect garbage up to `generation` (2: everything made since the last freeze; 1: only the
    young, cheap even right after a large load), then freeze what survives: later collections skip
    it, and freed objects still go by reference counting. Garbage in an older generation than the
    one collected stays for good: only freeze young when the old generation is known to hold the
    objects just kept."""
    gc.collect(generation)
    gc.freeze()


class _FreezeAfterFull:
    """A gc callback: what survives a full collection is frozen, so the next one scans only what
    came to live long since (a hollow kubelet of 30,000 pods spent 0.46 s on each of 30 full
    collections in 76 s: the statuses and requests it replaces keep promoting objects to the old
    generation). Garbage cycles among frozen objects would stay for good, so once the frozen set
    has doubled since everything was last scanned, and THAW_EVERY_S have passed, it is thawed: the
    next full collection scans it all once. Garbage stays bounded by the live heap and what grows
    in THAW_EVERY_S; a whole scan (0.6 s at 30,000 pods) is paid at most that often."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.scanned: int | None = None  # objects frozen right after a collection that scanned all
        self.thawed_at = clock()

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase != "stop" or info["generation"] != 2:
            return
        if self.scanned is not None and gc.get_freeze_count() > 2 * max(self.scanned, 1) and \
                self.clock() - self.thawed_at >= THAW_EVERY_S:
            gc.unfreeze()
            self.scanned, self.thawed_at = None, self.clock()
            return
        gc.freeze()
        if self.scanned is None:
            self.scanned = gc.get_freeze_count()


def configure() -> None:
    """This process's collection policy: young collections YOUNG_EVERY allocations apart, and what
    survives a full collection frozen (installed once)."""
    gc.set_threshold(YOUNG_EVERY, *gc.get_threshold()[1:])
    if not any(isinstance(cb, _FreezeAfterFull) for cb in gc.callbacks):
        gc.callbacks.append(_FreezeAfterFull())
