"""Large heaps and the cyclic garbage collector. A store or cache holding 100,000 objects pays a
full collection of 1–2 s every few tens of thousands of allocations, scanning objects that live
as long as the process (measured by bench.scale: 2.2 s of a 4.9 s cold resync, 2.3 s of a load).
Objects known to be long-lived are frozen out of the collector's way; young collections come less
often than CPython's defaults make them, older ones in smaller steps (THRESHOLDS)."""
from __future__ import annotations

import gc
import time
from typing import Any, Callable

THAW_EVERY_S = 300.0
# When the collector runs (gc.set_threshold). CPython's 700 allocations (net of frees) between young
# collections, each carrying its survivors toward older generations, made a process answering
# thousands of messages a second collect hundreds of times a second, catching each message's
# short-lived containers alive to be scanned again and again: 20-30% of the store's, the scheduler's
# and the kubelet's CPU in bench.startup at 5,000 nodes. 10,000 lets most of them go by reference
# counting first, and halves that time. Collecting the middle generation every 2nd young collection
# and the whole heap every 2nd of those (not 10th and 10th) keeps each collection small: a full one
# scans what survived since the last and freezes it, so how often it runs changes its pause, not
# the total work (at 10,000 with 10 and 10, a kubelet's full collection stood it still for 1.2 s).
THRESHOLDS = (10_000, 2, 2)


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
    """This process's collection policy: THRESHOLDS, and what survives a full collection frozen
    (installed once)."""
    gc.set_threshold(*THRESHOLDS)
    if not any(isinstance(cb, _FreezeAfterFull) for cb in gc.callbacks):
        gc.callbacks.append(_FreezeAfterFull())
