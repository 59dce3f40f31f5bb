"""The store actor: the sole writer. Group commit, durable before reply, outbox, bookmarks.

A batch is applied in memory on the ioloop, then committed on the writer thread; while the disk
syncs, the ioloop keeps reading the next commands off the socket. Replies, acks and events for a
batch leave only once its transaction is on disk, and the next batch is applied only then, so every
answer (reads included) reflects durable state and bookmarks are cut between batches.

Only the holder of the `{c}.store.lock` exclusive queue consumes `{c}.store` (itself a
single-active-consumer queue); another store process waits as a hot standby and, when the
lock frees, reloads the state from the data directory and takes over.
"""
from __future__ import annotations

import os
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
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
        self.writer = ThreadPoolExecutor(1, thread_name_prefix="store-writer")  # every backend call, in order
        self.committing = False
        self.epoch = 0  # bumps when the channel is lost: a commit finishing after that answers nobody
        self.bookmarks_due = False
        self._drained: Callable[[], None] | None = None
        self._timers_started = False

    # ---- leadership ------------------------------------------------------------------------
    def consumers(self) -> list[Consumer]:
        return [Consumer(store_queue(self.names), self.on_command, self.settings.prefetch)]

    def on_active(self) -> None:
        """Load the state as the data directory has it and publish what is unpublished, then serve."""
        rev, published, rows, applied = self._backend(lambda b: (*b.load(), list(b.load_applied())))
        self.state = State(self.clock)
        self.state.load(rev, rows)
        self.applied = OrderedDict((a.message_id, a) for a in applied)
        self.outbox = Outbox(self.bus, self.names.events, published)
        replayed = self.outbox.restart(self._backend(lambda b: list(b.log_after(published))))
        self.state.seed_namespaces()
        self._write_now()
        self.dirty.update(self.state.digests)
        self.log.info("store.active", rev=self.state.rev, objects=len(self.state.objects), replayed=replayed)
        self._start_timers()

    def _backend(self, call: Callable[[Backend], object]):
        """Run `call` on the writer thread after every commit queued before it, and wait for it."""
        return self.writer.submit(lambda: _materialise(call(self.backend))).result()

    def _start_timers(self) -> None:
        if self._timers_started:
            return
        self._timers_started = True
        self.every(self.settings.bookmark_interval_s, self.send_bookmarks)
        self.every(self.settings.bookmark_sweep_s, lambda: self.dirty.update(self.state.digests))
        self.every(COMPACT_EVERY_S, self.compact)

    def on_lost(self) -> None:
        self.batch.clear()  # unacked: the broker redelivers them to whoever serves next
        self.epoch += 1
        self.committing = False

    # ---- commands --------------------------------------------------------------------------
    def on_command(self, msg: Message) -> None:
        self.batch.append(msg)
        if len(self.batch) == 1 and not self.committing:
            self.bus.call_later(0, self.flush)

    def flush(self) -> None:
        """Group commit: apply the batch in memory and hand its transaction to the writer thread."""
        if self.committing or not self.batch or not self.active:
            return
        batch, self.batch = self.batch, []
        now = self.clock()
        answers: list[tuple[Message, list[bytes]]] = []
        applied: list[Applied] = []
        for msg in batch:
            parts = self._answer(msg, now, applied)
            if parts is not None:
                answers.append((msg, parts))
        changes = self.state.take_changes()
        if not changes and not applied:
            self._answer_all(answers)  # reads only: nothing to make durable
            self._maybe_drained()
            return
        events = [change.event() for change in changes]
        self.committing, epoch = True, self.epoch
        commit = self.writer.submit(self.backend.commit, changes, events, applied, self.outbox.confirmed)
        commit.add_done_callback(lambda done: self.bus.call_soon(
            lambda: self._committed(epoch, done, changes, events, answers, now)))

    def _committed(self, epoch: int, commit: Future, changes: list, events: list[bytes],
                   answers: list[tuple[Message, list[bytes]]], started: float) -> None:
        """On the ioloop once the batch is on disk: publish, reply, ack; then the next batch."""
        if commit.exception() is not None:
            self._disk_failed(commit.exception())
        if epoch != self.epoch:
            return  # the channel went: the outbox republishes from the log, redeliveries hit the dedupe
        self.committing = False
        self._publish(changes, events)
        self._answer_all(answers)
        self.log.debug("store.flush", commands=len(answers), rev=self.state.rev,
                       ms=round((self.clock() - started) * 1000, 2))
        if self.bookmarks_due:
            self.send_bookmarks()
        self.flush()
        self._maybe_drained()

    def _maybe_drained(self) -> None:
        if self._drained is not None and not self.committing and not self.batch:
            self._drained, done = None, self._drained
            done()

    def _answer_all(self, answers: list[tuple[Message, list[bytes]]]) -> None:
        for msg, parts in answers:
            for part in parts:
                self.reply(msg, part)
            msg.ack()

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

    def _write_now(self) -> None:
        """Commit whatever the state holds (seeded namespaces, the confirmed revision) and wait."""
        changes = self.state.take_changes()
        events = [change.event() for change in changes]
        try:
            self._backend(lambda b: b.commit(changes, events, [], self.outbox.confirmed))
        except Exception as exc:
            self._disk_failed(exc)
        self._publish(changes, events)

    def _publish(self, changes: list, events: list[bytes]) -> None:
        for change, raw in zip(changes, events):
            self.outbox.publish(change.rev, change.key, change.from_key, raw)
            self.dirty.add(change.key)
            if change.from_key:
                self.dirty.add(change.from_key)

    def _disk_failed(self, exc: BaseException) -> None:
        """A failing disk ends the process: the broker redelivers the unacked batch to the next store,
        and nothing was promised."""
        self.log.error("store.commit_failed", rev=self.state.rev, error=repr(exc))
        os._exit(70)

    # ---- background ------------------------------------------------------------------------
    def send_bookmarks(self) -> None:
        """Count and digest per changed routing key, only once every event up to `rev` is out; while a
        batch is being committed, right after it."""
        self.bookmarks_due = self.committing
        if self.committing:
            return
        if not self.active or self.bus.channel is None or not self.outbox.caught_up(self.state.rev):
            if self.active and self.outbox.failed and self.bus.channel is not None:
                self.outbox.restart(self._backend(lambda b: list(b.log_after(self.outbox.confirmed))))
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
        self.writer.submit(self._compact_on_writer, keep_from, horizon, self.outbox.confirmed)

    def _compact_on_writer(self, keep_from: int, horizon: float, confirmed: int) -> None:
        """Drop old log rows and dedupe ids, and record the confirmed revision, between two batches."""
        try:
            dropped = self.backend.compact(keep_from, horizon)
            self.backend.commit([], [], [], confirmed)
        except Exception as exc:
            self._disk_failed(exc)
        if dropped:
            self.log.info("store.compacted", dropped=dropped, rev=self.state.rev)

    def on_drain(self, done: Callable[[], None]) -> None:
        """Answer what has arrived, wait for the commit in flight, then let the actor stop."""
        self._drained = done
        if self.active:
            self.flush()
        else:
            self.batch.clear()
        self._maybe_drained()


def _materialise(value):
    """Generators read the database lazily; read them on the writer thread, not after."""
    if isinstance(value, tuple):
        return tuple(_materialise(v) for v in value)
    return list(value) if hasattr(value, "__next__") else value
