"""Which routing keys get a bookmark next: keys that changed, and on the slow sweep every key,
including keys that became empty (for a while), so a consumer that lost a key's last DELETED
learns it from a bookmark with count 0. The periodic sweep is spread over several takes: all of
5,000 nodes' keys at once were a burst that stalled every actor for 2 s (bench.startup)."""
from __future__ import annotations

from typing import Iterable

from bus.digest import KeyDigest

EMPTY_KEY_RETENTION_S = 3600.0


class BookmarkKeys:
    def __init__(self) -> None:
        self.dirty: set[str] = set()
        self.emptied: dict[str, float] = {}  # key -> when its last object went
        self.sweeping: list[str] = []  # swept keys not yet taken
        self.per_take = 0

    def mark(self, key: str) -> None:
        self.dirty.add(key)

    def sweep(self, keys: Iterable[str], now: float, takes: int = 1) -> None:
        """Every key that has objects, and the keys emptied within the retention, handed out over
        the next `takes` takes."""
        swept = set(keys)
        for key, when in list(self.emptied.items()):
            if now - when > EMPTY_KEY_RETENTION_S:
                del self.emptied[key]
            else:
                swept.add(key)
        self.sweeping = sorted(swept)
        self.per_take = -(-len(self.sweeping) // max(1, takes))

    def take(self, digests: dict[str, KeyDigest], now: float) -> list[tuple[str, KeyDigest]]:
        """The keys due, with their digests (empty ones with count 0); forgets emptied digests."""
        keys, self.dirty = self.dirty, set()
        if self.sweeping:
            keys.update(self.sweeping[-self.per_take:])
            del self.sweeping[-self.per_take:]
        out = []
        for key in keys:
            digest = digests.get(key)
            if digest is None:
                if key not in self.emptied:
                    continue
                digest = KeyDigest()
            elif digest.count == 0:
                del digests[key]
                self.emptied[key] = now
            else:
                self.emptied.pop(key, None)
            out.append((key, digest))
        return out
