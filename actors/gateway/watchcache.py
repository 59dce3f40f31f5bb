"""The gateway's watch cache, as kube-apiserver's cacher: per person, kind and namespace, one bus
watch (RBAC-checked by the apiserver when its queue is declared) that keeps the objects and a
window of recent changes with the state before each. An HTTP watch from resourceVersion R replays
the window after R and goes on live; R older than the window is `410 Expired`. Every change is
applied on the event loop (handed over from the connection's thread in order), so no locks."""
from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable

from api.registry import KindInfo
from api.status import StatusError
from runtime.cache import Delta
from runtime.client import Client

WINDOW = 5000  # changes kept for watches that resume from a resourceVersion (settings.gateway_watch_window)
SYNC_TIMEOUT_S = 30.0
WATCHER_BACKLOG = 10_000  # events a slow HTTP client may lag behind before its watch is ended


@dataclass(frozen=True)
class Change:
    type: str  # ADDED, MODIFIED, DELETED
    rev: int
    obj: dict
    prev: dict | None  # the object before the change (None when it is new)


def expired(rev: int, oldest: int) -> StatusError:
    return StatusError("Expired", f"too old resource version: {rev} ({oldest})")


class Watcher:
    """One HTTP watch: its filter, the revision it resumes after, and its queue of events."""

    def __init__(self, matches: Callable[[dict], bool], after: int):
        self.matches, self.after = matches, after
        self.queue: asyncio.Queue = asyncio.Queue()

    def offer(self, change: Change) -> None:
        if change.rev <= self.after:
            return  # the client's list already had it
        was = change.prev is not None and self.matches(change.prev)
        now = change.type != "DELETED" and self.matches(change.obj)
        if was and now:
            self.put(("MODIFIED", change.obj))
        elif now:
            self.put(("ADDED", change.obj))
        elif was:  # deleted, or it left the selector: its last matching state, at the new revision
            obj = change.obj if change.type == "DELETED" else _at_rev(change.prev, change.rev)
            self.put(("DELETED", obj))

    def put(self, item) -> None:
        if self.queue.qsize() >= WATCHER_BACKLOG:
            item = ("ERROR", StatusError("Expired", "the watch fell too far behind; list again"))
        self.queue.put_nowait(item)

    def end(self, error: StatusError) -> None:
        self.queue.put_nowait(("ERROR", error))


class KindCache:
    def __init__(self, client: Client, info: KindInfo, namespace: str | None, loop: asyncio.AbstractEventLoop,
                 size: int | None = None):
        self.client, self.info, self.namespace, self.loop = client, info, namespace, loop
        self.size = size or WINDOW  # the window's length in changes
        self.objects: dict[str, dict] = {}
        self.window: deque[Change] = deque()
        self.horizon = 0  # a watch may resume from any revision >= this
        self.progress = 0  # every change up to this revision has been applied
        self.watchers: set[Watcher] = set()
        self.synced: asyncio.Future = loop.create_future()
        self.failed: StatusError | None = None
        self.last_used = time.monotonic()
        self.feed = client.watch(info.kind, namespace, handler=self._from_bus, on_synced=self._synced_on_bus,
                                 on_failed=self._failed_on_bus)

    # ---- from the connection's thread ------------------------------------------------------------
    def _from_bus(self, delta: Delta) -> None:
        self.loop.call_soon_threadsafe(self._apply, delta)

    def _synced_on_bus(self, rev: int) -> None:
        self.loop.call_soon_threadsafe(self._synced, rev)

    def _failed_on_bus(self, error: StatusError) -> None:
        self.loop.call_soon_threadsafe(self._fail, error)

    def refresh_progress(self) -> None:
        """Ask the connection's thread for the watch's revision (bookmarks included): every event up to
        it has been handed over before the answer, so BOOKMARKs may carry it."""
        self.client.bus.call_soon(lambda: self.loop.call_soon_threadsafe(self._advance, self.feed.rev))

    # ---- on the event loop -----------------------------------------------------------------------
    def _apply(self, delta: Delta) -> None:
        key = delta.key
        prev = self.objects.get(key)
        if delta.type == "DELETED":
            self.objects.pop(key, None)
        else:
            self.objects[key] = delta.object
        if not self.synced.done():
            return  # the initial snapshot: the state the window starts from
        if delta.synthetic:
            self._restart(delta.rev)  # a resync after a gap: revisions in between are unknown
            return
        change = Change(delta.type, delta.rev, delta.object, prev)
        self.window.append(change)
        if len(self.window) > self.size:
            self.horizon = self.window.popleft().rev
        self._advance(delta.rev)
        for watcher in list(self.watchers):
            watcher.offer(change)

    def _advance(self, rev: int) -> None:
        self.progress = max(self.progress, rev)

    def _synced(self, rev: int) -> None:
        if self.synced.done():
            self._restart(rev)  # synced again after a reconnect
            return
        self.horizon = self.progress = rev
        self.synced.set_result(rev)

    def _restart(self, rev: int) -> None:
        self.window.clear()
        self.horizon = self.progress = max(self.progress, rev)
        for watcher in list(self.watchers):
            watcher.end(expired(rev, rev))
        self.watchers.clear()

    def _fail(self, error: StatusError) -> None:
        self.failed = error
        if not self.synced.done():
            self.synced.set_exception(error)
        for watcher in list(self.watchers):
            watcher.end(error)
        self.watchers.clear()

    async def ready(self) -> None:
        self.last_used = time.monotonic()
        await asyncio.wait_for(asyncio.shield(self.synced), SYNC_TIMEOUT_S)

    def watch_options(self) -> dict:
        """The options of the bus watch this cache follows (its queue and keys)."""
        spec = self.feed.informer.spec
        return {"keys": list(spec.binding_keys(self.client.names.events)), "queue": spec.name}

    def subscribe(self, since: int | None, matches: Callable[[dict], bool]) -> tuple[Watcher, list]:
        """A watcher of changes after `since` (None: the current objects first, as ADDED), with the
        events it starts with; Expired when `since` is older than the window."""
        if self.failed:
            raise self.failed
        if since is not None and since < self.horizon:
            raise expired(since, self.horizon)
        watcher = Watcher(matches, since if since is not None else self.progress)
        if since is None:
            first = [("ADDED", obj) for _, obj in sorted(self.objects.items()) if matches(obj)]
        else:
            replay = Watcher(matches, since)
            for change in self.window:
                replay.offer(change)
            first = [replay.queue.get_nowait() for _ in range(replay.queue.qsize())]
        self.watchers.add(watcher)
        self.last_used = time.monotonic()
        return watcher, first

    def unsubscribe(self, watcher: Watcher) -> None:
        self.watchers.discard(watcher)
        self.last_used = time.monotonic()

    def close(self) -> None:
        self.feed.close()


def _at_rev(obj: dict, rev: int) -> dict:
    return {**obj, "metadata": {**(obj.get("metadata") or {}), "resourceVersion": str(rev)}}
