"""How long an apiserver holds a part-filled `commands` batch for more commands to join it.

A command that leaves alone costs the most: its own message to the store, its own turn there, its
own transaction and fsync. 5,000 nodes renewing their Leases every 10 s send 500 commands a second,
~2 ms apart, and each left alone: 1.83 ms of CPU a renewal, nearly 4× a write among 64 in flight
(bench.startup --idle, docs/benchmarks.md). Held a few milliseconds, they share messages and
transactions — Kafka's producer does the same (`linger.ms`, 5 ms by default since 4.0).

A hold pays only when someone else is likely to send meanwhile: a client writing in a loop sends
its next command once this one is answered, and holding it would only slow it (the reasoning of
PostgreSQL's `commit_siblings`). So the hold follows the rate of commands from senders other than
the one whose command begins the batch: none while one sender writes alone or the others are few
and far between; else long enough to gather about `AIM` commands, and never more than `MOST_S`. A
batch that has `AIM` leaves when the turn ends (`batches.py`): where commands come together anyway,
holding them adds only latency (bench.scheduler: 2-12% fewer pods/s when every batch waited).
"""
from __future__ import annotations

import math
import time
from typing import Callable, Hashable

MOST_S = 0.005  # the longest a command waits for company
AIM = 4  # commands a hold waits for
TAU_S = 0.5  # the rates forget over about this long
FORGET_EVERY = 4096  # arrivals between sweeps of the senders gone quiet


class Rate:
    """Arrivals a second, an exponentially decaying average (each arrival weighs 1/TAU_S, fading)."""
    __slots__ = ("value", "at")

    def __init__(self, now: float):
        self.value, self.at = 0.0, now

    def add(self, now: float) -> None:
        self.value = self.at_time(now) + 1 / TAU_S
        self.at = now

    def at_time(self, now: float) -> float:
        return self.value * math.exp((self.at - now) / TAU_S)


class Linger:
    """Each sender's rate and all senders' together, and the hold they give."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.all = Rate(clock())
        self.senders: dict[Hashable, Rate] = {}
        self.until_sweep = FORGET_EVERY

    def arrived(self, sender: Hashable) -> None:
        """A command of `sender` came in."""
        now = self.clock()
        self.all.add(now)
        rate = self.senders.get(sender)
        if rate is None:
            rate = self.senders[sender] = Rate(now)
        rate.add(now)
        self.until_sweep -= 1
        if not self.until_sweep:
            self._sweep(now)

    def hold(self, sender: Hashable) -> float:
        """Seconds to hold a batch that `sender`'s command begins: 0 unless another sender's command
        should come within `MOST_S`."""
        now = self.clock()
        own = self.senders.get(sender)
        others = self.all.at_time(now) - (own.at_time(now) if own is not None else 0.0)
        if others * MOST_S < 1:
            return 0.0
        return min(MOST_S, (AIM - 1) / others)

    def _sweep(self, now: float) -> None:
        """Forget the senders quiet for 10 τ (their rate is below 1/20,000 of one arrival's weight)."""
        self.until_sweep = FORGET_EVERY
        self.senders = {s: r for s, r in self.senders.items() if now - r.at < 10 * TAU_S}
