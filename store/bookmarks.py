"""Which routing keys get a bookmark next: keys that changed, and on the slow sweep every key,
including keys that became empty (for a while), so a consumer that lost a key's last DELETED
learns it from a bookmark with count 0. A take holds at most MAX_PER_TAKE keys, changed ones
first and oldest first, and the periodic sweep is spread over several takes: every one of 5,000
nodes' keys at once was a burst that stalled every actor for 2 s (bench.startup), and after a
store's activation held its replies 0.4 s behind the bookmarks (bench.scale's gets)."""
from __future__ import annotations

import itertools
from typing import Iterable

from bus.digest import KeyDigest

EMPTY_KEY_RETENTION_S = 3600.0
MAX_PER_TAKE = 1000


class BookmarkKeys:
    def __init__(self) -> None:
        self.dirty: dict[str, None] = {}  # changed keys, in the order they first changed
        self.emptied: dict[str, float] = {}  # key -> when its last object went
        self.sweeping: list[str] = []  # swept keys not yet taken
        self.per_take = 0

    def mark(self, key: str) -> None:
        self.dirty[key] = None  # a key marked again keeps its place

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
        keys = list(itertools.islice(self.dirty, MAX_PER_TAKE))
        for key in keys:
            del self.dirty[key]
        swept = min(self.per_take, MAX_PER_TAKE - len(keys))
        if self.sweeping and swept > 0:
            keys += self.sweeping[-swept:]
            del self.sweeping[-swept:]
        out = []
        for key in dict.fromkeys(keys):  # changed and swept: one bookmark
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
