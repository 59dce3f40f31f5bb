"""The store actor: the sole writer. Group commit, durable before reply, outbox, bookmarks.

A batch is applied in memory on the ioloop, then committed: on the ioloop while commits are quick
and the writer thread has nothing queued, else on the writer thread while the ioloop keeps reading
the next commands off the socket (store/writer.py). Replies, acks and events for a batch leave only
once its transaction is on disk, and the next batch is applied only then, so every answer (reads
included) reflects durable state and bookmarks are cut between batches.

Only the holder of the `{c}.store.lock` exclusive queue consumes `{c}.store` (itself a
single-active-consumer queue); another store process waits as a hot standby and, when the
lock frees, reloads the state from the data directory and takes over.
"""
from __future__ import annotations

import os
import time
from concurrent.futures import Future
from typing import Callable

from api.status import StatusError, internal_error
from bus import codec
from bus.codec import DecodeError
from bus.declare import store_queue
from bus.message import Message
from bus.messages import WRITES, parse_request, valid_reply_to
from bus.dead import publish_dead
from config.identities import broker_user_of
from config.settings import API_SERVICE_PORT, BROKER_SERVICE_PORT, Settings
from runtime import metrics
from runtime.actor import Actor, Consumer
from runtime.heap import freeze_survivors
from store.allocators import Allocation
from store.backend import Applied, Backend, Fenced
from store.bookmarks import BookmarkKeys
from store.commands import Parts, execute, failure
from store.dedupe import Dedupe
from store.inbox import Answers, Command, commands_of
from store.outbox import Outbox
from store.outcomes import outcome_replies
from store.seeds import seed_api_endpoints, seed_broker_endpoints, seed_services
from store.sqlite import make_backend
from store.state import State
from store.upkeep import Upkeep
from store.writer import Writer

COMPACT_EVERY_S = 30.0
ALIVE_EVERY_S = 1.0
EXIT_DISK, EXIT_FENCED, EXIT_BEHIND = 70, 75, 76
CHUNK_ENVELOPE = 4096  # a list or snapshot reply's own fields: its items fill the message limit less this
# Commands per group commit, at most (whole messages): what came in while one was committed (64
# writers: all of them) would otherwise be answered all at once, and the writers, the apiserver and
# the store would take turns with it instead of overlapping.
GROUP_COMMANDS = 32


def _first_group(commands: list[Command]) -> tuple[list[Command], list[Command]]:
    """The first `GROUP_COMMANDS` commands, and on to the end of their last message (a message is acked
    once every command of it is answered), then the rest."""
    end = GROUP_COMMANDS
    while end < len(commands) and commands[end].msg is commands[end - 1].msg:
        end += 1
    return commands[:end], commands[end:]


class StoreActor(Upkeep, Actor):
    name = "store"
    singleton = True

    def __init__(self, settings: Settings, backend: Backend | None = None, **kw):
        super().__init__(settings, **kw)
        self.backend = backend or make_backend(settings)
        self.state = self._new_state()
        metrics.watch_store(lambda: self.state.rev, getattr(self.backend, "path", None))
        self.dedupe = Dedupe(settings.dedupe_max_bytes)
        self.outbox = Outbox(self.bus, self.names.events, 0, settings.max_message_bytes, self._skip_event)
        self.batch: list[Command] = []
        self.bookmarks = BookmarkKeys()
        self.writer = Writer()  # every backend call, in order
        self.committing = False
        self.epoch = 0  # bumps when the channel is lost: a commit finishing after that answers nobody
        self.alive_at = time.monotonic()  # the mailbox last ran; a long gap means the process was frozen
        self.fence_gap_s = max(3.0, float(settings.heartbeat_s))
        self.bookmarks_due = False
        self._drained: Callable[[], None] | None = None
        self._timers_started = False
        self.apiserver_user = broker_user_of(settings.cluster, "apiserver")

    # ---- leadership ------------------------------------------------------------------------
    def consumers(self) -> list[Consumer]:
        return [Consumer(store_queue(self.names, self.bounds), self.on_command, self.settings.prefetch, batch=True)]

    def on_active(self) -> None:
        """Claim the database (fencing out any earlier store), load the state as it has it and publish
        what is unpublished, then serve."""
        claim = self._backend(lambda b: b.claim())
        self.replies.start()
        rev, published, rows, applied = self._backend(lambda b: (*b.load(), list(b.load_applied())))
        self.state = self._new_state()
        self.state.load(rev, rows)
        freeze_survivors(generation=1)  # every object just loaded lives on: no full scans of them
        self.dedupe.load(applied)
        self.outbox.reset(published)
        replayed = self.outbox.restart(self._backend(lambda b: list(b.log_after(published))))
        self.state.seed_namespaces()
        seed_services(self.state, API_SERVICE_PORT, BROKER_SERVICE_PORT)
        seed_api_endpoints(self.state, self.settings.api_service_ip, API_SERVICE_PORT)
        seed_broker_endpoints(self.state, self.settings.broker_service_ip, BROKER_SERVICE_PORT)
        self._write_now()
        self.bookmarks.sweep(self.state.digests, self.clock())
        self.log.info("store.active", rev=self.state.rev, objects=len(self.state.objects), replayed=replayed,
                      claim=claim, node=self.bus.node)
        self.alive_at = time.monotonic()
        self._start_timers()

    def _new_state(self) -> State:
        return State(self.clock, self.settings.max_object_bytes,
                     Allocation(self.settings.service_cidr, self.settings.service_node_port_range))

    def _backend(self, call: Callable[[Backend], object]):
        """Run `call` on the writer thread after every commit queued before it, and wait for it."""
        return self.writer.submit(lambda: _materialise(call(self.backend))).result()

    def _start_timers(self) -> None:
        if self._timers_started:
            return
        self._timers_started = True
        self.every(self.settings.bookmark_interval_s, self.send_bookmarks)
        self.every(self.settings.bookmark_sweep_s, self._sweep)
        self.every(COMPACT_EVERY_S, self.compact)
        self.every(ALIVE_EVERY_S, self._alive)

    def _alive(self) -> None:
        """Fencing, the early half: a mailbox that did not run for longer than the broker keeps a silent
        connection was frozen (SIGSTOP, a stalled VM); its lock may be another store's by now, so it
        exits before writing anything. The database claim catches what this misses."""
        gap = time.monotonic() - self.alive_at
        if self.active and gap > self.fence_gap_s:
            self.log.error("store.frozen", seconds=round(gap, 1), rev=self.state.rev)
            os._exit(EXIT_FENCED)
        self.alive_at = time.monotonic()

    def on_lost(self) -> None:
        self.batch.clear()  # unacked: the broker redelivers them to whoever serves next
        self.epoch += 1
        self.committing = False

    # ---- commands --------------------------------------------------------------------------
    def on_command(self, msg: Message) -> None:
        if msg.user_id != self.apiserver_user:  # the default exchange reaches this queue too
            self.dead_letter(msg, "forbidden", f"commands come from apiservers only, not from {msg.user_id!r}")
            return
        try:
            commands = commands_of(msg)
        except DecodeError as exc:
            self.dead_letter(msg, exc.reason, exc.detail)
            return
        first = not self.batch
        self.batch.extend(commands)
        if first and not self.committing:
            self.bus.call_later(0, self.flush)

    def flush(self) -> None:
        """Group commit: apply the batch in memory and hand its transaction to the writer thread."""
        if self.committing or not self.batch or not self.active:
            return
        self._alive()
        batch, self.batch = _first_group(self.batch)
        now = self.clock()
        answers: list[tuple[Command, Parts]] = []
        applied: list[Applied] = []
        for cmd in batch:
            parts = self._answer(cmd, now, applied)
            if parts is not None:
                answers.append((cmd, parts))
        answers = Answers(answers, batch)
        changes = self.state.take_changes()
        if not changes and not applied:
            self._reads_only(answers)
            return
        self.committing = True
        self._commit(changes, [change.event() for change in changes], applied, answers, now)

    def _reads_only(self, answers: Answers) -> None:
        """A batch of reads: nothing to make durable, answered at once."""
        self._answer_all(answers)
        self._next_group()
        self._maybe_drained()

    def _commit(self, changes: list, events: list[bytes], applied: list[Applied], answers: Answers,
                started: float, wal: dict[str, int] | None = None) -> None:
        """The batch's transaction (at once, or behind what the writer thread has); then, on the
        ioloop, its events and replies."""
        epoch = self.epoch
        commit = self.writer.now_or_queued(self.backend.commit, changes, events, applied, self.outbox.confirmed, wal)
        if commit.done():
            self.alive_at = time.monotonic()  # the mailbox waited on its own commit, it was not frozen
            self._committed(epoch, commit, changes, events, answers, started)
            return
        commit.add_done_callback(lambda done: self.bus.call_soon(
            lambda: self._committed(epoch, done, changes, events, answers, started)))

    def _committed(self, epoch: int, commit: Future, changes: list, events: list[bytes], answers: Answers,
                   started: float) -> None:
        """On the ioloop once the batch is on disk: publish, reply, ack; then the next batch."""
        if commit.exception() is not None:
            self._write_failed(commit.exception())
        if epoch != self.epoch:
            return  # the channel went: the outbox republishes from the log, redeliveries hit the dedupe
        self.committing = False
        metrics.store_committed(len(answers.taken), self.clock() - started)
        self._publish(changes, events)
        self._answer_all(answers)
        self.log.debug("store.flush", commands=len(answers.replies), rev=self.state.rev,
                       ms=round((self.clock() - started) * 1000, 2))
        if self.bookmarks_due:
            self.send_bookmarks()
        self._next_group()
        self._maybe_drained()

    def _next_group(self) -> None:
        """The commands a group commit left, on the next turn: this turn's answers and acks leave when
        it ends, to be acted on meanwhile (and no chain of groups grows the stack)."""
        if self.batch:
            self.bus.call_later(0, self.flush)

    def _maybe_drained(self) -> None:
        if self._drained is not None and not self.committing and not self.batch:
            self._drained, done = None, self._drained
            done()

    def _answer_all(self, answers: Answers) -> None:
        """Every command's reply parts (and a batch's outcomes, when its apiserver asked), then one ack
        per message: a batch is acked when every command of it is answered (or dropped: expired,
        dead-lettered)."""
        messages = answers.messages()
        self.send_replies([(cmd.reply_to, cmd.correlation_id, parts) for cmd, parts in answers.replies if cmd.reply_to]
                          + outcome_replies(answers, messages))  # an auditing apiserver's, after its clients'
        for msg in messages:
            msg.ack()

    def _answer(self, cmd: Command, now: float, applied: list[Applied]) -> Parts | None:
        """The reply parts of one command; None when it gets none (expired, dead-lettered). Never raises."""
        if cmd.expires is not None and cmd.expires < now:
            return None  # its caller stopped waiting: contract 2 drops it unanswered
        if not valid_reply_to(cmd.reply_to):
            self._dead_command(cmd, "reply-to", f"{cmd.reply_to!r} is not a direct reply-to address")
            return None
        seen = self.dedupe.get(cmd.dedupe_key)
        if seen is not None:
            return [seen.reply]
        try:
            req = parse_request(cmd.body)
        except StatusError as exc:
            if cmd.reply_to:
                return [failure(exc)]
            self._dead_command(cmd, "invalid", exc.message)  # nobody to answer
            return None
        parts = self._execute(cmd, req)
        if req.verb in WRITES and cmd.dedupe_key:
            record = Applied(cmd.dedupe_key, now, parts[0], req.kind or "")
            self.dedupe.add(record)
            applied.append(record)
        return parts

    def _execute(self, cmd: Command, req) -> Parts:
        try:
            return execute(self.state, req, self.settings.max_message_bytes - CHUNK_ENVELOPE)
        except Exception as exc:  # a bug met by one command: answer it, keep serving the rest
            self.log.exception("store.command_failed", message_id=cmd.id, user=cmd.user, rev=self.state.rev)
            return [failure(internal_error(exc))]

    def _dead_command(self, cmd: Command, reason: str, detail: str) -> None:
        """A message of one command goes to `{c}.dead` whole; one command of a batch goes alone."""
        if cmd.alone:
            self.dead_letter(cmd.msg, reason, detail)
            return
        publish_dead(self.bus, self.names, "store", codec.encode(cmd.body), reason, detail, self.name,
                     type="command", message_id=cmd.id, correlation_id=cmd.correlation_id)

    def _write_now(self) -> None:
        """Commit whatever the state holds (seeded namespaces, the confirmed revision) and wait."""
        changes = self.state.take_changes()
        events = [change.event() for change in changes]
        try:
            self._backend(lambda b: b.commit(changes, events, [], self.outbox.confirmed))
        except Exception as exc:
            self._write_failed(exc)
        self._publish(changes, events)

    def _publish(self, changes: list, events: list[bytes]) -> None:
        self.outbox.publish_all([(c.rev, c.key, c.from_key, raw) for c, raw in zip(changes, events)])
        for change in changes:
            self.bookmarks.mark(change.key)
            if change.from_key:
                self.bookmarks.mark(change.from_key)

    def _write_failed(self, exc: BaseException) -> None:
        """A failing disk, or another store that claimed the database, ends the process: the broker
        redelivers the unacked batch to the store that serves next, and nothing was promised."""
        if isinstance(exc, Fenced):
            self.log.error("store.fenced", rev=self.state.rev, error=str(exc))
            os._exit(EXIT_FENCED)
        self.log.error("store.commit_failed", rev=self.state.rev, error=repr(exc))
        os._exit(EXIT_DISK)

    def _skip_event(self, rev: int, key: str, raw: bytes, why: str) -> None:
        """An event the broker will not take goes to `{c}.dead` (its head, if it is too big) with the reason."""
        body = raw if len(raw) <= self.settings.max_message_bytes // 2 else codec.encode({"rev": rev, "key": key})
        publish_dead(self.bus, self.names, key, body, "unpublishable", why, self.name, type="event")

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
