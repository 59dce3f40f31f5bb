"""The store actor: the sole writer. Group commit, durable before reply, outbox, bookmarks.

Only the holder of the `{c}.store.lock` exclusive queue consumes `{c}.store` (itself a
single-active-consumer queue); another store process waits as a hot standby and, when the
lock frees, reloads the state from the data directory and takes over.
"""
from __future__ import annotations

import os
from collections import OrderedDict
from typing import Callable

from bus.declare import store_queue
from bus.message import Message
from bus.messages import WRITES, parse_request
from bus.codec import DecodeError
from config.settings import Settings
from runtime.actor import Actor, Consumer
from store.backend import Applied, Backend
from store.commands import execute
from store.memory import MemoryBackend
from store.outbox import Outbox
from store.sqlite import SqliteBackend
from store.state import State

COMPACT_EVERY_S = 30.0


def make_backend(settings: Settings, kind: str = "sqlite") -> Backend:
    if kind == "memory":
        return MemoryBackend()
    return SqliteBackend(settings.data_dir / f"{settings.cluster}.store.db", fsync=settings.store_fsync)


class StoreActor(Actor):
    name = "store"
    singleton = True

    def __init__(self, settings: Settings, backend: Backend | None = None, **kw):
        super().__init__(settings, **kw)
        self.backend = backend or make_backend(settings)
        self.state = State(self.clock)
        self.applied: OrderedDict[str, Applied] = OrderedDict()
        self.outbox = Outbox(self.bus, self.names.events, 0)
        self.batch: list[Message] = []
        self.dirty: set[str] = set()
        self._timers_started = False

    # ---- leadership ------------------------------------------------------------------------
    def consumers(self) -> list[Consumer]:
        return [Consumer(store_queue(self.names), self.on_command, self.settings.prefetch)]

    def on_active(self) -> None:
        """Load the state as the data directory has it and publish what is unpublished, then serve."""
        rev, published, rows = self.backend.load()
        self.state = State(self.clock)
        self.state.load(rev, rows)
        self.applied = OrderedDict((a.message_id, a) for a in self.backend.load_applied())
        self.outbox = Outbox(self.bus, self.names.events, published)
        replayed = self.outbox.restart(self.backend.log_after(published))
        self.state.seed_namespaces()
        self._write()
        self.dirty.update(self.state.digests)
        self.log.info("store.active", rev=self.state.rev, objects=len(self.state.objects), replayed=replayed)
        self._start_timers()

    def _start_timers(self) -> None:
        if self._timers_started:
            return
        self._timers_started = True
        self.every(self.settings.bookmark_interval_s, self.send_bookmarks)
        self.every(self.settings.bookmark_sweep_s, lambda: self.dirty.update(self.state.digests))
        self.every(COMPACT_EVERY_S, self.compact)

    def on_lost(self) -> None:
        self.batch.clear()  # unacked: the broker redelivers them to whoever serves next

    # ---- commands --------------------------------------------------------------------------
    def on_command(self, msg: Message) -> None:
        if not self.batch:
            self.bus.call_later(0, self.flush)
        self.batch.append(msg)

    def flush(self) -> None:
        """Group commit: apply the batch, write it in one transaction, then reply, ack and publish."""
        batch, self.batch = self.batch, []
        if not batch or not self.active:
            return
        now = self.clock()
        answers: list[tuple[Message, list[bytes]]] = []
        applied: list[Applied] = []
        for msg in batch:
            parts = self._answer(msg, now, applied)
            if parts is not None:
                answers.append((msg, parts))
        self._write(applied)
        for msg, parts in answers:
            for part in parts:
                self.reply(msg, part)
            msg.ack()
        self.log.debug("store.flush", commands=len(batch), rev=self.state.rev, ms=round((self.clock() - now) * 1000, 2))

    def _answer(self, msg: Message, now: float, applied: list[Applied]) -> list[bytes] | None:
        try:
            req = parse_request(msg.body)
        except DecodeError as exc:
            self.dead_letter(msg, exc.reason, exc.detail)
            return None
        seen = self.applied.get(msg.message_id or "")
        if seen is not None:
            return [seen.reply]
        parts = execute(self.state, req, self.settings.max_message_bytes // 2)
        if req.verb in WRITES and msg.message_id:
            record = Applied(msg.message_id, now, parts[0])
            self.applied[msg.message_id] = record
            applied.append(record)
        return parts

    def _write(self, applied: list[Applied] = ()) -> None:
        """Commit the pending changes durably, then publish their events. A failing disk ends the
        process: the broker redelivers the unacked batch to the next store, and nothing was promised."""
        changes = self.state.take_changes()
        events = [change.event() for change in changes]
        try:
            self.backend.commit(changes, events, list(applied), self.outbox.confirmed)
        except Exception:
            self.log.exception("store.commit_failed", rev=self.state.rev)
            os._exit(70)
        for change, raw in zip(changes, events):
            self.outbox.publish(change.rev, change.key, change.from_key, raw)
            self.dirty.add(change.key)
            if change.from_key:
                self.dirty.add(change.from_key)

    # ---- background ------------------------------------------------------------------------
    def send_bookmarks(self) -> None:
        """Count and digest per changed routing key, only once every event up to `rev` is out."""
        if not self.active or self.bus.channel is None or not self.outbox.caught_up(self.state.rev):
            if self.active and self.outbox.failed and self.bus.channel is not None:
                self.outbox.restart(self.backend.log_after(self.outbox.confirmed))
            return
        dirty, self.dirty = self.dirty, set()
        for key in dirty:
            digest = self.state.digests.get(key)
            if digest is None:
                continue
            self.bus.publish(self.names.events, key, {
                "type": "BOOKMARK", "kind": key.split(".", 1)[0], "shard": key, "rev": self.state.rev,
                "count": digest.count, "digest": digest.digest}, type="event")
            if digest.count == 0:
                del self.state.digests[key]

    def compact(self) -> None:
        if not self.active:
            return
        keep_from = min(self.outbox.confirmed, self.state.rev - self.settings.log_retention) + 1
        horizon = self.clock() - self.settings.dedupe_window_s
        while self.applied and next(iter(self.applied.values())).at < horizon:
            self.applied.popitem(last=False)
        dropped = self.backend.compact(keep_from, horizon)
        self._write()  # records the confirmed revision
        if dropped:
            self.log.info("store.compacted", dropped=dropped, rev=self.state.rev)

    def on_drain(self, done: Callable[[], None]) -> None:
        self.flush()
        done()
