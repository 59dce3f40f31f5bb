"""Login attempts per key (a client address, a user name), with back-off: what makes a flood of bad
tokens or a password guesser wait, answered 429 before the broker is asked."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable


@dataclass
class _Strikes:
    pending: int = 0  # attempts the broker has not answered yet
    failures: int = 0  # refused since the last success
    until: float = 0.0  # no attempt before this (the clock's time)
    last: float = 0.0  # the last attempt or refusal


class Throttle:
    """`allowed` attempts that have not succeeded (pending or refused) are free; the refusal that uses
    the last of them makes the key wait `first_s`, and each refusal after it twice as long, up to `max_s`.
    An attempt counts from when it starts, so a flood is held back before any of it is answered; a
    success clears the key. A key quiet for `max_s` is forgotten; at most `capacity` keys are kept."""

    def __init__(self, allowed: int, first_s: float, max_s: float, capacity: int = 10_000,
                 clock: Callable[[], float] = time.monotonic):
        self.allowed, self.first_s, self.max_s = allowed, first_s, max(first_s, max_s)
        self.capacity = capacity
        self.clock = clock
        self._keys: dict[str, _Strikes] = {}

    def wait(self, key: str) -> float:
        """Seconds before `key` may start an attempt; 0 when it may now."""
        strikes = self._keys.get(key)
        if strikes is None:
            return 0.0
        now = self.clock()
        if strikes.until > now:
            return strikes.until - now
        if strikes.pending and strikes.pending + strikes.failures >= self.allowed:
            return self.first_s  # the attempts in flight may use up what is allowed
        if not strikes.pending and now - strikes.last > self.max_s:
            del self._keys[key]
        return 0.0

    def begin(self, key: str) -> None:
        strikes = self._keys.pop(key, None) or self._room()
        strikes.pending += 1
        strikes.last = self.clock()
        self._keys[key] = strikes  # the most recent last: the quietest keys come first

    def done(self, key: str, ok: bool | None) -> None:
        """An attempt's outcome: True succeeded, False refused, None unknown (the broker did not answer)."""
        strikes = self._keys.get(key)
        if strikes is None:
            return
        strikes.pending = max(0, strikes.pending - 1)
        if ok:
            strikes.failures, strikes.until = 0, 0.0
        elif ok is False:
            strikes.failures += 1
            strikes.last = now = self.clock()
            over = strikes.failures - self.allowed
            if over >= 0:
                strikes.until = now + min(self.max_s, self.first_s * 2 ** min(over, 32))
        if not (strikes.pending or strikes.failures):
            del self._keys[key]

    def _room(self) -> _Strikes:
        """New strikes, once the keys are below capacity: the forgotten go first, then the quietest."""
        if len(self._keys) >= self.capacity:
            for key in list(self._keys):
                self.wait(key)
            while len(self._keys) >= self.capacity:
                del self._keys[next(iter(self._keys))]
        return _Strikes()
