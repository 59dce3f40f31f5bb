"""The replicated store (KUBUS_STORE_REPLICATION=stream; DESIGN.md "Scale-out", scale-out.md §4): every
store process, active or standby, follows the stream `{c}.store.wal` in order through the same rule
(`store.wal.Rule`) into its own SQLite database.

- The active store appends each group-commit batch as an entry tagged with its claim epoch and
  treats it as committed only when it reads the entry back at its place in the log and the rule
  accepts it: then it writes the batch to its own database and answers. A confirm is not a commit.
- A standby applies every accepted batch to its database as it reads it, so it is current when the
  lock comes to it. It takes over by appending `claim(epoch + 1)`; once it reads its claim back
  accepted (having applied everything before it), it loads its database and serves.
- A store that finds entries it never read cut by the stream's retention stops following and never
  claims: it asks the store holding the lock for a copy of its database (`store.replica`), puts it
  in place of its own and starts again, following the log from the copy's position; with no copy
  to be had it exits (76).
- A batch of reads only is answered once a `beat` of the store's epoch is read back accepted: a read
  barrier, so reads are linearizable like writes.
- A store whose batch the log rejects, or that reads another's claim while serving, has been
  deposed: it exits without answering and comes back as a standby (the supervisor restarts it); its
  database holds only accepted batches. One that loses its connection steps down in place.
"""
from __future__ import annotations

import os
import random
import tempfile
from pathlib import Path

from api.status import StatusError
from bus.declare import QueueSpec
from bus.logstream import LogStream
from bus.message import Message
from bus.messages import valid_reply_to
from config.answerers import store_answerers
from config.identities import broker_user_of
from runtime.actor import Consumer
from store import replica, wal, walpayload
from store.actor import EXIT_BEHIND, EXIT_FENCED, StoreActor
from store.inbox import Answers

APPEND_RETRY_S = 0.05
READ_BACK_S = 2.0  # an entry not read back by then may be lost (the stream moved): start over
REPLICA_WAIT_S = 120.0  # how long a store behind the log keeps asking for a copy


class ReplicatedStore(StoreActor):
    def __init__(self, settings, **kw):
        super().__init__(settings, **kw)
        self.me = random.getrandbits(62) or 1  # this process's name in the log
        position = self._backend(lambda b: b.wal_position())
        self.rule = wal.Rule(position.get("epoch", 0), position.get("owner") or None, position.get("rev", 0),
                             history=False)
        self.offset = position.get("offset", -1)  # the last entry read
        self.stream = LogStream(self.bus, self.names.store_wal, settings.wal_max_bytes,
                                settings.wal_segment_bytes, self._read, self._resume)
        self.claiming: int | None = None  # the epoch of the claim this store waits to read back
        self.serving = False
        self.seq = 0
        self.in_flight: tuple | None = None  # (seq, what waits): the batch or beat appended, not yet read back
        self.behind = False  # the log's retention cut entries this store never read
        self.store_user = broker_user_of(settings.cluster, "store")

    # ---- following the log ----------------------------------------------------------------------
    def _on_ready(self, bus) -> None:
        self.stream.follow()
        super()._on_ready(bus)

    def _resume(self) -> int | str:
        return self.offset + 1 if self.offset >= 0 else "first"

    def _read(self, offset: int, body: bytes) -> None:
        try:
            entry = wal.decode(body)
        except Exception as exc:  # noqa: BLE001 - whatever a foreign writer put there: skip it, say so
            self._bad_entry(offset, str(exc)[:200])
            return
        self._entry(offset, entry)

    def _entry(self, offset: int, entry: dict) -> None:
        if offset <= self.offset or self.behind:
            return  # read again after a reconnect; or nothing more to follow until a copy comes
        if self.rule.missed(entry):
            self._behind(offset, entry)
            return
        self.offset = offset
        accepted = self.rule.apply(entry)
        mine = entry.get("store") == self.me
        if entry["t"] == wal.BATCH:
            self._batch(entry, accepted, mine)
        elif entry["t"] == wal.CLAIM:
            self._claim(entry, accepted, mine)
        elif entry["t"] == wal.BEAT:
            self._beat(entry, accepted, mine)

    def _position(self) -> dict[str, int]:
        return {"offset": self.offset, "epoch": self.rule.epoch, "rev": self.rule.rev, "owner": self.rule.owner or 0}

    def _batch(self, entry: dict, accepted: bool, mine: bool) -> None:
        held = self._taken_back(entry) if mine else None
        if held is not None:
            changes, events, applied, answers, started = held
            if not accepted:
                self._deposed("the log rejected this store's batch")
            super()._commit(changes, events, applied, answers, started, self._position())
        elif accepted:
            changes, events, applied, published = walpayload.decode(entry["payload"])
            self._apply(changes, events, applied, published)

    def _beat(self, entry: dict, accepted: bool, mine: bool) -> None:
        """A read barrier read back: the reads of its batch are answered, as of its place in the log."""
        held = self._taken_back(entry) if mine else None
        if held is not None:
            if not accepted:
                self._deposed("the log rejected this store's read barrier")
            self.committing = False
            super()._reads_only(held[0])

    def _claim(self, entry: dict, accepted: bool, mine: bool) -> None:
        if mine and entry["epoch"] == self.claiming and not accepted:
            self.log.info("store.claim_again", epoch=self.rule.epoch + 1, offset=self.offset)
            self.on_active()  # a claim made before this store had read the log so far: no effect, go on
        elif mine and entry["epoch"] == self.claiming:
            self.claiming = None
            self.log.info("store.claimed", epoch=entry["epoch"], offset=self.offset, rev=self.rule.rev)
            self._apply([], [], [], 0)
            self._serve()
        elif accepted:
            if self.serving:
                self._deposed(f"store {entry['store']} claimed epoch {entry['epoch']}")
            self._apply([], [], [], 0)

    def _apply(self, changes: list, events: list[bytes], applied: list, published: int) -> None:
        """An accepted entry into this store's database, in log order (the writer thread keeps it)."""
        done = self.writer.submit(self.backend.commit, changes, events, applied, published, self._position())
        done.add_done_callback(lambda f: f.exception() and self.bus.call_soon(
            lambda: self._write_failed(f.exception())))

    def _bad_entry(self, offset: int, why: str) -> None:
        self.offset = max(self.offset, offset)
        self.log.error("store.wal_undecodable", offset=offset, error=why)

    def _behind(self, offset: int, entry: dict) -> None:
        """The stream's retention cut entries this store never read: its database cannot be made
        current from the log (serving it, or claiming with it, would lose their writes). It asks the
        store holding the lock for a copy of its database and starts again from that."""
        self.behind = True
        self.log.warning("store.wal_gap", offset=offset, epoch=self.rule.epoch, rev=self.rule.rev,
                         entry_epoch=entry["epoch"], entry_prev=entry["prev"], asking="a copy of the active's database")
        if self.active:
            self._give_up("it holds the lock itself: another store must serve the copy")
        self.rpc.call("", self.names.store_replica, {"verb": "replica"}, self._copied, REPLICA_WAIT_S,
                      answerers=store_answerers(self.names.cluster), user_id=self.bus.user, retry=True)

    def _copied(self, reply: dict | StatusError) -> None:
        if isinstance(reply, StatusError) or not reply.get("ok"):
            self._give_up(str(reply if isinstance(reply, StatusError) else reply.get("status")))
        parts = reply["items"]
        self._backend(lambda b: None)  # every commit queued before is done: nothing writes the file now
        size = replica.install(self.backend.path, parts)
        self.log.info("store.replica_installed", bytes=size, restarting=True)
        replica.restart()

    def _give_up(self, why: str) -> None:
        self.log.error("store.wal_gap_unrepaired", why=why[:300],
                       hint="give this store a copy of a current store's database (sqlite3 .backup), "
                            "or a larger KUBUS_WAL_MAX_BYTES")
        os._exit(EXIT_BEHIND)

    # ---- copies for stores behind the log -----------------------------------------------------------
    def consumers(self) -> list[Consumer]:
        spec = QueueSpec(self.names.store_replica, durable=False, auto_delete=True)
        return [*super().consumers(), Consumer(spec, self.on_replica_request, 1)]

    def on_replica_request(self, msg: Message) -> None:
        """Another store asks for a copy of this one's database (the default exchange reaches this
        queue from anyone: only stores are answered)."""
        if msg.user_id != self.store_user:
            self.dead_letter(msg, "forbidden", f"copies of the store go to stores only, not to {msg.user_id!r}")
            return
        if not msg.reply_to or not valid_reply_to(msg.reply_to):
            self.dead_letter(msg, "reply-to", f"{msg.reply_to!r} is not a direct reply-to address to send a copy to")
            return
        if self.behind:
            self._refuse_copy(msg, "this store is behind the log itself")
            return
        self.offload(lambda: _copy_or_error(self.backend.path), lambda made: self._send_copy(msg, made))

    def _send_copy(self, msg: Message, made) -> None:
        """The copy leaves a part at a time on the big reads' connection, not on this one."""
        if isinstance(made, Exception):
            self._refuse_copy(msg, f"the copy failed: {made!r}")
            return
        self.send_replies([(msg.reply_to, msg.correlation_id, replica.replies(made))])
        self.log.info("store.replica_sending", to=msg.user_id)
        msg.ack()

    def _refuse_copy(self, msg: Message, why: str) -> None:
        self.reply(msg, {"ok": False, "status": StatusError("ServiceUnavailable", why).to_dict()})
        msg.ack()

    def _deposed(self, why: str) -> None:
        self.log.error("store.deposed", why=why, epoch=self.rule.epoch, rev=self.state.rev)
        os._exit(EXIT_FENCED)

    # ---- taking over and serving ------------------------------------------------------------------
    def on_active(self) -> None:
        """Claim the next epoch in the log; serve once the claim is read back accepted."""
        if self.behind:
            self._give_up("it was given the lock while behind the log")
        self.claiming = self.rule.epoch + 1
        self._append(wal.claim(self.claiming, self.me, max(self.offset, 0)))

    def _serve(self) -> None:
        super().on_active()  # the database now holds every accepted batch before the claim
        self.serving = True
        self.flush()

    def flush(self) -> None:
        if self.serving:
            super().flush()

    def _write_now(self) -> None:
        """Seeds made while taking over go into the log like any batch."""
        changes = self.state.take_changes()
        if changes:
            self.committing = True
            self._commit(changes, [c.event() for c in changes], [], Answers([], []), self.clock())

    def _reads_only(self, answers: Answers) -> None:
        """Reads answered from memory could come from a store deposed without knowing it yet (its lock
        queue went with a node while its connection lives): they are answered once a `beat` of this
        store's epoch is read back accepted (scale-out.md §4.4: linearizable reads)."""
        self.committing = True
        self._append_held(wal.beat(self.rule.epoch, self.me, self.state.rev), answers)

    def _commit(self, changes, events, applied, answers, started, position=None) -> None:
        """Append the batch; it is committed when it is read back (`_batch`)."""
        entry = wal.batch(self.rule.epoch, self.me, changes[0].rev - 1 if changes else self.state.rev,
                          self.state.rev, walpayload.encode(changes, events, applied, self.outbox.confirmed))
        self._append_held(entry, changes, events, applied, answers, started)

    def _append_held(self, entry: dict, *held) -> None:
        """Append one of this store's batches or beats, holding what waits for its read-back (one at a time)."""
        self.seq += 1
        entry["seq"] = self.seq
        self.in_flight = (self.seq, held)
        self._append(entry)

    def _awaited(self, entry: dict) -> bool:
        return self.in_flight is not None and self.in_flight[0] == entry.get("seq")

    def _taken_back(self, entry: dict) -> tuple | None:
        """What this store held for `entry`, now read back (None for an entry it no longer waits for)."""
        if not self._awaited(entry):
            return None
        held, self.in_flight = self.in_flight[1], None
        return held

    def _append(self, entry: dict) -> None:
        if not self.stream.append(wal.encode(entry)):
            self.bus.call_later(APPEND_RETRY_S, lambda: self._append(entry))
            return
        self.bus.call_later(READ_BACK_S, lambda: self._read_back_due(entry))

    def _read_back_due(self, entry: dict) -> None:
        """Still waiting for an entry appended READ_BACK_S ago: the stream lost it or stalled. Nothing
        of it was answered; a new connection (and lock) lets the log say what happened."""
        waiting = (entry["t"] == wal.CLAIM and self.claiming == entry["epoch"]) or \
            (entry["t"] != wal.CLAIM and self._awaited(entry))
        if waiting:
            self.log.warning("store.wal_stalled", kind=entry["t"], epoch=entry["epoch"], offset=self.offset)
            self.bus.reconnect()

    def on_lost(self) -> None:
        """An active store cannot tell whether what it appended is in the log: it steps down, answers
        none of it, and learns the outcome as a standby reading on (its database and its dedupe are
        loaded again if it serves again)."""
        if self.serving or self.claiming is not None:
            self.log.warning("store.stepped_down", why="connection lost while active", rev=self.state.rev)
        self.serving, self.claiming, self.in_flight = False, None, None
        super().on_lost()


def _copy_or_error(path: Path) -> tempfile.TemporaryDirectory | Exception:
    """On a worker thread: the copy, or why it could not be made (the asker is told, not left waiting)."""
    try:
        return replica.copy(path, path.parent)
    except Exception as exc:  # noqa: BLE001 - any failure is the asker's answer
        return exc
