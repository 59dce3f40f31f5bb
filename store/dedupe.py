"""The dedupe window: the first reply of every write, keyed by (sender's broker user, message id),
kept for a while and within a byte budget, so a retry or a redelivery gets that reply again."""
from __future__ import annotations

from collections import OrderedDict
from typing import Iterable

from store.backend import Applied


class Dedupe:
    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.bytes = 0
        self.entries: OrderedDict[str, Applied] = OrderedDict()

    def load(self, applied: Iterable[Applied]) -> None:
        self.entries.clear()
        self.bytes = 0
        for record in applied:
            self.add(record)

    def get(self, key: str | None) -> Applied | None:
        return self.entries.get(key) if key else None

    def add(self, record: Applied) -> None:
        old = self.entries.pop(record.message_id, None)  # applied again once the window forgot it
        if old is not None:
            self.bytes -= _size(old)
        self.entries[record.message_id] = record
        self.bytes += _size(record)
        while self.bytes > self.max_bytes and len(self.entries) > 1:
            self._pop_oldest()

    def expire(self, horizon: float) -> float:
        """Forget records older than `horizon`; returns the time before which the database may drop them
        (later than `horizon` when the byte budget already dropped newer ones)."""
        while self.entries and next(iter(self.entries.values())).at < horizon:
            self._pop_oldest()
        return next(iter(self.entries.values())).at if self.entries else horizon

    def _pop_oldest(self) -> None:
        _, record = self.entries.popitem(last=False)
        self.bytes -= _size(record)


def _size(record: Applied) -> int:
    return len(record.reply) + len(record.message_id) + 64
