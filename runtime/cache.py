"""The local cache (contract 4): objects under a consumer's bindings, kept by events, checked by
bookmarks, repaired from snapshots. Pure logic; the informer feeds it from the broker."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from bus.digest import KeyDigest
from bus.messages import Bookmark, Event
from bus.topology import matcher, object_key

ObjKey = tuple[str, str, str]


class Gap(Exception):
    """The cache missed something; a resync from a snapshot repairs it."""


class StaleSnapshot(Exception):
    """A snapshot cut before what the cache has already seen."""


@dataclass(frozen=True)
class Delta:
    """What a handler sees: ADDED, MODIFIED or DELETED, and the object's state."""

    type: str
    kind: str
    object: dict
    rev: int
    synthetic: bool = False  # produced by a resync, not by an event
    tombstone: bool = False  # a deletion seen only through a resync: the object is its last known state

    @property
    def key(self) -> str:
        meta = self.object["metadata"]
        return f"{meta['namespace']}/{meta['name']}" if meta.get("namespace") else meta["name"]


def oid(kind: str, obj: dict) -> ObjKey:
    meta = obj["metadata"]
    return kind, meta.get("namespace") or "", meta["name"]


def _rv(obj: dict) -> int:
    return int(obj["metadata"]["resourceVersion"])


class Cache:
    def __init__(self, bindings: Iterable[str]):
        self.bindings = tuple(bindings)
        self.matcher = matcher(self.bindings)
        self.objects: dict[ObjKey, tuple[dict, str]] = {}
        self.digests: dict[str, KeyDigest] = {}
        self.rev = 0  # every change up to here is reflected
        self.floor = 0  # the revision of the last snapshot loaded
        self.synced = False

    def get(self, kind: str, namespace: str | None, name: str) -> dict | None:
        entry = self.objects.get((kind, namespace or "", name))
        return entry[0] if entry else None

    def list(self, kind: str | None = None) -> list[dict]:
        return [obj for (k, _, _), (obj, _) in self.objects.items() if kind is None or k == kind]

    # ---- events --------------------------------------------------------------------------------
    def apply(self, ev: Event) -> list[Delta]:
        if ev.rev <= self.rev:
            return []  # a duplicate, or a replay of what a snapshot already holds
        key = object_key(ev.kind, ev.object)
        ident = oid(ev.kind, ev.object)
        cached = self.objects.get(ident)
        self._check_continuity(ev, cached)
        self.rev = ev.rev
        if ev.type == "DELETED" or not self.matcher.matches(key):
            if cached is None:
                return []
            self._remove(ident)
            return [Delta("DELETED", ev.kind, ev.object, ev.rev)]
        self._store(ident, ev.object, key)
        return [Delta("ADDED" if cached is None else "MODIFIED", ev.kind, ev.object, ev.rev)]

    def _check_continuity(self, ev: Event, cached: tuple[dict, str] | None) -> None:
        if cached is not None:
            if ev.prev != _rv(cached[0]):
                raise Gap(f"{ev.kind} {ident_text(ev)}: event prev {ev.prev}, cache has {_rv(cached[0])}")
            return
        entered = ev.from_ is not None and not self.matcher.matches(ev.from_)
        if ev.prev != 0 and not entered:
            raise Gap(f"{ev.kind} {ident_text(ev)}: event prev {ev.prev} for an object the cache does not know")

    def check(self, bm: Bookmark) -> None:
        """Compare a bookmark's count and digest with the cache's objects under that key."""
        if bm.rev < self.floor or bm.rev < self.rev or not self.matcher.matches(bm.shard):
            return
        mine = self.digests.get(bm.shard) or KeyDigest()
        if (mine.count, mine.digest) != (bm.count, bm.digest):
            raise Gap(f"bookmark {bm.shard}@{bm.rev}: store has {bm.count} objects, cache {mine.count}")
        self.rev = max(self.rev, bm.rev)

    # ---- snapshots -------------------------------------------------------------------------------
    def replace(self, items: list[dict], rev: int) -> list[Delta]:
        """Load a snapshot cut at `rev`; the synthetic deltas close the difference with the cache."""
        if rev < self.rev:
            raise StaleSnapshot(f"snapshot at {rev} is older than the cache at {self.rev}")
        old = self.objects
        self.objects, self.digests = {}, {}
        deltas = []
        for obj in items:
            kind = obj["kind"]
            key = object_key(kind, obj)
            if not self.matcher.matches(key):
                continue
            ident = oid(kind, obj)
            self._store(ident, obj, key)
            before = old.pop(ident, None)
            if before is None:
                deltas.append(Delta("ADDED", kind, obj, rev, synthetic=True))
            elif _rv(before[0]) != _rv(obj):
                deltas.append(Delta("MODIFIED", kind, obj, rev, synthetic=True))
        for (kind, _, _), (obj, _) in old.items():
            deltas.append(Delta("DELETED", kind, obj, rev, synthetic=True, tombstone=True))
        self.rev = self.floor = rev
        self.synced = True
        return deltas

    def _store(self, ident: ObjKey, obj: dict, key: str) -> None:
        if ident in self.objects:
            self._remove(ident)
        self.objects[ident] = (obj, key)
        self.digests.setdefault(key, KeyDigest()).add(obj["metadata"]["uid"], obj["metadata"]["resourceVersion"])

    def _remove(self, ident: ObjKey) -> None:
        obj, key = self.objects.pop(ident)
        self.digests[key].remove(obj["metadata"]["uid"], obj["metadata"]["resourceVersion"])


def ident_text(ev: Event) -> str:
    meta = ev.object.get("metadata") or {}
    return f"{meta.get('namespace') or ''}/{meta.get('name')}".lstrip("/")
