"""How long an apiserver holds a part-filled `commands` batch for more commands to join it.

A command that leaves alone costs the most: its own message to the store, its own turn there, its
own transaction and fsync. 5,000 nodes renewing their Leases every 10 s send 500 commands a second,
~2 ms apart, and each left alone: 1.83 ms of CPU a renewal, nearly 4× a write among 64 in flight
(bench.startup --idle, docs/benchmarks.md). Held a few milliseconds, they share messages and
transactions — Kafka's producer does the same (`linger.ms`, 5 ms by default since 4.0).

A hold pays only when more commands are likely to come meanwhile: a client writing in a loop sends
its next command once this one is answered, and holding it would only slow it (the reasoning of
PostgreSQL's `commit_siblings`). So the hold follows the rate of commands that can join: every other
sender's, and the sender's own once it has shown it does not wait for its answers — a command of it
came while another of it was still here (not yet confirmed by the broker), as a kubelet's 5,000 nodes
or a controller's workers do. None while one sender writes in a loop or the others are few and far
between; else long enough to gather about `AIM` commands, and never more than `MOST_S`. A batch that
has `AIM` leaves when the turn ends (`batches.py`): where commands come together anyway, holding them
adds only latency (bench.scheduler: 2-12% fewer pods/s when every batch waited).
"""
from __future__ import annotations

import math
import time
from typing import Callable, Hashable

MOST_S = 0.005  # the longest a command waits for company
AIM = 4  # commands a hold waits for
TAU_S = 0.5  # the rates forget over about this long
FORGET_EVERY = 4096  # arrivals between sweeps of the senders gone quiet
OVERLAP_S = 4 * TAU_S  # a sender's own commands count this long after two of them overlapped


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


class Sender:
    """One sender's rate, its commands here (not yet with the broker), and when two last overlapped."""
    __slots__ = ("rate", "here", "overlapped")

    def __init__(self, now: float):
        self.rate, self.here, self.overlapped = Rate(now), 0, -math.inf


class Linger:
    """Each sender's rate and all senders' together, and the hold they give."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.all = Rate(clock())
        self.senders: dict[Hashable, Sender] = {}
        self.until_sweep = FORGET_EVERY

    def arrived(self, sender: Hashable) -> None:
        """A command of `sender` came in; `left(sender)` once the broker has it (or it is dropped)."""
        now = self.clock()
        self.all.add(now)
        known = self.senders.get(sender)
        if known is None:
            known = self.senders[sender] = Sender(now)
        known.rate.add(now)
        if known.here:
            known.overlapped = now
        known.here += 1
        self.until_sweep -= 1
        if not self.until_sweep:
            self._sweep(now)

    def left(self, sender: Hashable) -> None:
        known = self.senders.get(sender)
        if known is not None and known.here:
            known.here -= 1

    def hold(self, sender: Hashable) -> float:
        """Seconds to hold a batch that `sender`'s command begins: 0 unless more commands that can
        join it should come within `MOST_S`."""
        now = self.clock()
        company = self.all.at_time(now)
        known = self.senders.get(sender)
        if known is not None and now - known.overlapped > OVERLAP_S:
            company -= known.rate.at_time(now)  # it waits for this command's answer before its next
        if company * MOST_S < 1:
            return 0.0
        return min(MOST_S, (AIM - 1) / company)

    def _sweep(self, now: float) -> None:
        """Forget the senders quiet for 10 τ (their rate is below 1/20,000 of one arrival's weight)
        that have nothing here."""
        self.until_sweep = FORGET_EVERY
        self.senders = {s: k for s, k in self.senders.items() if k.here or now - k.rate.at < 10 * TAU_S}
