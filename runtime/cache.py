"""The local cache (contract 4): objects under a consumer's bindings, kept by events, checked by
bookmarks, repaired from snapshots. Pure logic; the informer feeds it from the broker.

Duplicates and gaps are judged per object, bookmarks per routing key: one event with an absurd
revision can blind the cache to that object only, never to the others."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import structlog

from bus.digest import KeyDigest
from bus.messages import Bookmark, Event
from bus.topology import matcher, object_key

ObjKey = tuple[str, str, str]
Entry = tuple[dict, str]  # the object and its routing key
MAX_GONE = 10_000  # deletions remembered between snapshots, against replays of older events
MAX_RV_DIGITS = 20

log = structlog.get_logger("cache")


class Gap(Exception):
    """The cache missed something; a resync from a snapshot repairs it."""


class StaleSnapshot(Exception):
    """A snapshot cut before what the cache has already seen."""


class BadEvent(Exception):
    """An event or snapshot item that passed the wire checks but has not the shape of an object."""


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


def _uid(obj: dict) -> str:
    return obj["metadata"]["uid"]


def identify(kind: str, obj: object) -> tuple[ObjKey, str, int]:
    """Who an object is, under which routing key, at which revision; BadEvent if it cannot say."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    if not isinstance(meta, dict):
        raise BadEvent("object: no metadata map")
    name, namespace, uid, rv = (meta.get(f) for f in ("name", "namespace", "uid", "resourceVersion"))
    if not isinstance(name, str) or not name:
        raise BadEvent("metadata.name: a non-empty string is required")
    if namespace is not None and not isinstance(namespace, str):
        raise BadEvent("metadata.namespace: a string is required")
    if not isinstance(uid, str) or not uid:
        raise BadEvent("metadata.uid: a non-empty string is required")
    if not (isinstance(rv, str) and rv.isascii() and rv.isdigit() and len(rv) <= MAX_RV_DIGITS):
        raise BadEvent(f"metadata.resourceVersion: {str(rv)[:40]!r} is not a revision")
    try:
        key = object_key(kind, obj)
    except (AttributeError, TypeError) as exc:
        raise BadEvent(f"object: no routing key ({exc})") from None
    return (kind, namespace or "", name), key, int(rv)


class Cache:
    def __init__(self, bindings: Iterable[str]):
        self.bindings = tuple(bindings)
        self.matcher = matcher(self.bindings)
        self.objects: dict[ObjKey, Entry] = {}
        self.digests: dict[str, KeyDigest] = {}
        self.rev = 0  # the newest revision seen (snapshot, event or bookmark): a store going back shows
        self.floor = 0  # the revision of the last snapshot loaded
        self.key_revs: dict[str, int] = {}  # routing key -> newest revision applied under it
        self.gone: dict[ObjKey, int] = {}  # deleted or departed since the snapshot -> at which revision
        self.synced = False
        self._refused: int | None = None  # a snapshot refused for going backwards, once

    def get(self, kind: str, namespace: str | None, name: str) -> dict | None:
        entry = self.objects.get((kind, namespace or "", name))
        return entry[0] if entry else None

    def list(self, kind: str | None = None) -> list[dict]:
        return [obj for (k, _, _), (obj, _) in self.objects.items() if kind is None or k == kind]

    # ---- events --------------------------------------------------------------------------------
    def apply(self, ev: Event) -> list[Delta]:
        """The deltas one event makes; [] for a duplicate. Gap when it reveals a missed change,
        BadEvent (the cache untouched) when the object has not the shape of one."""
        ident, key, rv = identify(ev.kind, ev.object)
        if rv != ev.rev:
            raise BadEvent(f"rev {ev.rev} differs from metadata.resourceVersion {rv}")
        cached = self.objects.get(ident)
        if ev.rev <= self._newest(ident, cached):
            return []  # a duplicate, or a replay of what a snapshot already holds
        self._check_continuity(ev, cached)
        self._note(ev.rev, key, ev.from_, cached)
        if ev.type == "DELETED" or not self.matcher.matches(key):
            return self._gone(ident, ev, cached)
        self.gone.pop(ident, None)
        self._store(ident, ev.object, key)
        return [Delta("ADDED" if cached is None else "MODIFIED", ev.kind, ev.object, ev.rev)]

    def _newest(self, ident: ObjKey, cached: Entry | None) -> int:
        """The revision an event about `ident` must exceed to be news."""
        if cached is not None:
            return _rv(cached[0])
        return max(self.floor, self.gone.get(ident, 0))

    def _check_continuity(self, ev: Event, cached: Entry | None) -> None:
        if cached is not None:
            if ev.prev != _rv(cached[0]):
                raise Gap(f"{ev.kind} {ident_text(ev)}: event prev {ev.prev}, cache has {_rv(cached[0])}")
            return
        entered = ev.from_ is not None and not self.matcher.matches(ev.from_)
        if ev.prev != 0 and not entered:
            raise Gap(f"{ev.kind} {ident_text(ev)}: event prev {ev.prev} for an object the cache does not know")

    def _note(self, rev: int, key: str, from_: str | None, cached: Entry | None) -> None:
        """Remember `rev` as the newest change under every bound key the event touched."""
        self.rev = max(self.rev, rev)
        for touched in {key, from_, cached[1] if cached else None}:
            if touched is not None and self.matcher.matches(touched):
                self.key_revs[touched] = max(self.key_revs.get(touched, 0), rev)

    def _gone(self, ident: ObjKey, ev: Event, cached: Entry | None) -> list[Delta]:
        """Deleted, or left the view (a Kubernetes watch with a selector reports DELETED)."""
        self.gone.pop(ident, None)
        self.gone[ident] = ev.rev
        if len(self.gone) > MAX_GONE:
            del self.gone[next(iter(self.gone))]  # the oldest; a bookmark catches a late replay of it
        if cached is None:
            return []
        self._remove(ident)
        return [Delta("DELETED", ev.kind, ev.object, ev.rev)]

    def check(self, bm: Bookmark) -> None:
        """Compare a bookmark's count and digest with the cache's objects under that key; only a
        bookmark at least as new as the snapshot and as that key's newest change says anything."""
        if not self.matcher.matches(bm.shard):
            return
        if bm.rev < self.floor or bm.rev < self.key_revs.get(bm.shard, 0):
            return
        mine = self.digests.get(bm.shard) or KeyDigest()
        if (mine.count, mine.digest) != (bm.count, bm.digest):
            raise Gap(f"bookmark {bm.shard}@{bm.rev}: store has {bm.count} objects, cache {mine.count}")
        self.rev = max(self.rev, bm.rev)

    # ---- snapshots -------------------------------------------------------------------------------
    def replace(self, items: list[dict], rev: int, replay: bool = False) -> list[Delta]:
        """Load a snapshot cut at `rev`; the synthetic deltas close the difference with the cache.
        `replay`: the handler forgot its state, so every object comes as ADDED."""
        self._accept(rev)
        loaded = self._load(items)
        deltas = _diff(self.objects, loaded, rev, replay)
        self.objects, self.digests = {}, {}
        for ident, (obj, key) in loaded.items():
            self._store(ident, obj, key)
        self.rev = self.floor = rev
        self.key_revs, self.gone = {}, {}
        self.synced = True
        return deltas

    def _accept(self, rev: int) -> None:
        """A snapshot older than what the cache saw means the store went back (restored from an
        older data directory, a standby with an empty one): refuse it once, then believe it."""
        if rev >= self.rev:
            self._refused = None
            return
        action = "refused" if self._refused is None else "accepted"
        log.error("cache.revision_backwards", snapshot_rev=rev, cache_rev=self.rev, action=action,
                  bindings=list(self.bindings)[:4])
        if self._refused is None:
            self._refused = rev
            raise StaleSnapshot(f"snapshot at {rev} is older than the cache at {self.rev}")
        self._refused = None

    def _load(self, items: list[dict]) -> dict[ObjKey, Entry]:
        if not isinstance(items, list):
            raise BadEvent(f"snapshot items: a list is required, not {type(items).__name__}")
        loaded: dict[ObjKey, Entry] = {}
        for obj in items:
            try:
                ident, key, _ = identify(obj.get("kind") if isinstance(obj, dict) else None, obj)
            except BadEvent as exc:
                log.error("cache.bad_snapshot_item", error=str(exc), item=str(obj)[:200])
                continue
            if self.matcher.matches(key):
                loaded[ident] = (obj, key)
        return loaded

    def _store(self, ident: ObjKey, obj: dict, key: str) -> None:
        if ident in self.objects:
            self._remove(ident)
        self.objects[ident] = (obj, key)
        self.digests.setdefault(key, KeyDigest()).add(_uid(obj), obj["metadata"]["resourceVersion"])

    def _remove(self, ident: ObjKey) -> None:
        obj, key = self.objects.pop(ident)
        self.digests[key].remove(_uid(obj), obj["metadata"]["resourceVersion"])


def _diff(old: dict[ObjKey, Entry], new: dict[ObjKey, Entry], rev: int, replay: bool) -> list[Delta]:
    """What a handler that saw `old` needs to see `new`; a name back with a new uid is another object."""
    deltas = []
    for ident, (obj, _) in new.items():
        kind, before = ident[0], old.get(ident)
        if before is not None and _uid(before[0]) != _uid(obj):
            deltas.append(Delta("DELETED", kind, before[0], rev, synthetic=True, tombstone=True))
            before = None
        if before is None or replay:
            deltas.append(Delta("ADDED", kind, obj, rev, synthetic=True))
        elif _rv(before[0]) != _rv(obj):
            deltas.append(Delta("MODIFIED", kind, obj, rev, synthetic=True))
    for ident, (obj, _) in old.items():
        if ident not in new:
            deltas.append(Delta("DELETED", ident[0], obj, rev, synthetic=True, tombstone=True))
    return deltas


def ident_text(ev: Event) -> str:
    meta = ev.object.get("metadata") or {}
    return f"{meta.get('namespace') or ''}/{meta.get('name')}".lstrip("/")
