"""Controller expectations: creations and deletions in flight per key, so a controller never acts
twice on the same shortfall while its own writes have not come back as events."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

EXPECTATIONS_TIMEOUT_S = 300.0


@dataclass
class _Record:
    adds: int
    deletes: set[str] = field(default_factory=set)
    at: float = 0.0


class Expectations:
    def __init__(self, clock: Callable[[], float]):
        self.clock = clock
        self._records: dict[str, _Record] = {}

    def expect(self, key: str, adds: int = 0, deletes: set[str] | None = None) -> None:
        self._records[key] = _Record(adds, set(deletes or ()), self.clock())

    def created(self, key: str) -> None:
        record = self._records.get(key)
        if record is not None:
            record.adds -= 1

    def deleted(self, key: str, uid: str) -> None:
        record = self._records.get(key)
        if record is not None:
            record.deletes.discard(uid)

    def satisfied(self, key: str) -> bool:
        record = self._records.get(key)
        return record is None or (record.adds <= 0 and not record.deletes) or \
            self.clock() - record.at > EXPECTATIONS_TIMEOUT_S

    def deleting(self, key: str) -> set[str]:
        """The uids of the pods whose deletes under `key` have not come back as events yet."""
        record = self._records.get(key)
        return set(record.deletes) if record is not None else set()

    def forget(self, key: str) -> None:
        self._records.pop(key, None)
