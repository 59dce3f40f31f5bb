"""A backend that keeps everything in memory: for unit tests; nothing survives the process."""
from __future__ import annotations

from typing import Iterator

from bus import codec
from store.backend import Applied, LogRow
from store.records import Change, ObjKey


class MemoryBackend:
    def __init__(self) -> None:
        self.objects: dict[ObjKey, dict] = {}
        self.log: dict[int, LogRow] = {}
        self.applied: dict[str, Applied] = {}
        self.rev = 0
        self.published = 0
        self.wal: dict[str, int] = {}

    def claim(self) -> int:
        return 1  # one process only: nothing to fence

    def load(self) -> tuple[int, int, Iterator[tuple[ObjKey, dict, bytes]]]:
        return self.rev, self.published, iter([(oid, obj, codec.encode(obj)) for oid, obj in self.objects.items()])

    def load_applied(self) -> Iterator[Applied]:
        return iter(list(self.applied.values()))

    def commit(self, changes: list[Change], events: list[bytes], applied: list[Applied], published: int,
               wal: dict[str, int] | None = None) -> None:
        self.wal.update(wal or {})
        for change, event in zip(changes, events):
            if change.type == "DELETED":
                self.objects.pop(change.oid, None)
            else:
                self.objects[change.oid] = change.obj
            self.log[change.rev] = LogRow(change.rev, change.key, change.from_key, event)
            self.rev = change.rev
        for item in applied:
            self.applied[item.message_id] = item
        self.published = max(self.published, published)

    def wal_position(self) -> dict[str, int]:
        return dict(self.wal)

    def log_after(self, rev: int) -> Iterator[LogRow]:
        return iter([row for r, row in sorted(self.log.items()) if r > rev])

    def compact(self, log_before: int, applied_before: float, limit: int = 1 << 62) -> int:
        old = sorted(r for r in self.log if r < log_before)[:limit]
        for r in old:
            del self.log[r]
        expired = [k for k, a in self.applied.items() if a.at < applied_before][:limit]
        for key in expired:
            del self.applied[key]
        return max(len(old), len(expired))

    def close(self) -> None:
        pass
