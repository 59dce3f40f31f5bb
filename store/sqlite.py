"""The embedded default backend: SQLite in WAL mode, one transaction per group commit."""
from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import msgpack

from config import encryption
from config.encryption import EncryptionConfig
from config.settings import Settings
from store.backend import Applied, Fenced, LogRow
from store.encryption import Sealer
from store.records import Change, ObjKey

CLEAR = Sealer(EncryptionConfig((), ()))  # encrypts nothing; refuses to read what was encrypted

SCHEMA = """
CREATE TABLE IF NOT EXISTS objects (kind TEXT, ns TEXT, name TEXT, data BLOB, PRIMARY KEY (kind, ns, name))
    WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS log (rev INTEGER PRIMARY KEY, key TEXT NOT NULL, from_key TEXT, event BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS replies (at REAL NOT NULL, id TEXT NOT NULL, reply BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS replies_at ON replies (at);
CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v INTEGER NOT NULL) WITHOUT ROWID;
"""


# The dedupe window's first replies (store/dedupe.py) are looked up in memory, never here: they are
# appended as they are applied, and an index on their time (which grows at its end) reads them back
# oldest first at load and finds the oldest to drop. Keyed by their random ids (a database with an
# `applied` table), every reply dirtied a page of its own.
_OLD_REPLIES = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'applied'"
_MIGRATE_REPLIES = ("INSERT INTO replies (at, id, reply) SELECT at, id, reply FROM applied ORDER BY at",
                    "DROP TABLE applied")


class SqliteBackend:
    def __init__(self, path: Path, fsync: bool = True, sealer: Sealer = CLEAR):
        """`sealer`: the kinds whose objects, log rows and replies are encrypted at rest."""
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.sealer = sealer
        self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute(f"PRAGMA synchronous={'FULL' if fsync else 'NORMAL'}")
        self.db.executescript(SCHEMA)
        self.claimed = 0  # this process's claim; 0 until it serves

    def claim(self) -> int:
        """Fencing: the claim number is bumped under SQLite's write lock, and every later write of this
        process checks it in its own transaction, so a store that was frozen while a standby took over
        cannot write once it resumes."""
        with self._write():
            self.claimed = self._meta("claim") + 1
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('claim', ?)", (self.claimed,))
            if self.db.execute(_OLD_REPLIES).fetchone():  # a database of an earlier store: fenced out now
                for statement in _MIGRATE_REPLIES:
                    self.db.execute(statement)
        return self.claimed

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; Fenced (and nothing written) if another process claimed the database."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            if self.claimed and self._meta("claim") != self.claimed:
                raise Fenced(f"the database was claimed by another store (claim {self._meta('claim')}, "
                             f"this store's {self.claimed})")
            yield db
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _meta(self, key: str) -> int:
        row = self.db.execute("SELECT v FROM meta WHERE k = ?", (key,)).fetchone()
        return row[0] if row else 0

    def load(self) -> tuple[int, int, Iterator[tuple[ObjKey, dict, bytes]]]:
        rows = self.db.execute("SELECT kind, ns, name, data FROM objects")
        return self._meta("rev"), self._meta("published"), (self._object(*row) for row in rows)

    def _object(self, kind: str, ns: str, name: str, data: bytes) -> tuple[ObjKey, dict, bytes]:
        data = self.sealer.open(data, f"{kind}/{ns}/{name}")
        return (kind, ns, name), msgpack.unpackb(data, raw=False), data

    def _sealed(self, kind: str, value: bytes, place: str) -> bytes:
        return self.sealer.seal(value, place) if self.sealer.covers(kind) else value

    def wal_position(self) -> dict[str, int]:
        """What `commit(wal=...)` last kept: {} for a store that never followed a log."""
        rows = self.db.execute("SELECT k, v FROM meta WHERE k LIKE 'wal_%'").fetchall()
        return {k[4:]: v for k, v in rows}

    def load_applied(self) -> Iterator[Applied]:
        for mid, at, reply in self.db.execute("SELECT id, at, reply FROM replies ORDER BY at, rowid"):
            yield Applied(mid, at, self.sealer.open(reply, f"reply/{mid}"))

    def commit(self, changes: list[Change], events: list[bytes], applied: list[Applied], published: int,
               wal: dict[str, int] | None = None) -> None:
        """`wal`: where this batch stands in the replicated log (offset, epoch, rev, owner's number),
        kept in the same transaction so a restarted store follows on from exactly there."""
        with self._write() as db:
            for key, value in (wal or {}).items():
                db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (f"wal_{key}", value))
            for change, event in zip(changes, events):
                kind, ns, name = change.oid
                if change.type == "DELETED":
                    db.execute("DELETE FROM objects WHERE kind = ? AND ns = ? AND name = ?", change.oid)
                else:
                    db.execute("INSERT OR REPLACE INTO objects VALUES (?, ?, ?, ?)",
                               (kind, ns, name, self._sealed(kind, change.entry.raw, f"{kind}/{ns}/{name}")))
                db.execute("INSERT INTO log VALUES (?, ?, ?, ?)", (change.rev, change.key, change.from_key,
                                                                   self._sealed(kind, event, f"log/{change.rev}")))
            db.executemany("INSERT INTO replies VALUES (?, ?, ?)", [
                (a.at, a.message_id, self._sealed(a.kind, a.reply, f"reply/{a.message_id}")) for a in applied])
            if changes:
                db.execute("INSERT OR REPLACE INTO meta VALUES ('rev', ?)", (changes[-1].rev,))
            db.execute("INSERT OR REPLACE INTO meta VALUES ('published', MAX(?, COALESCE((SELECT v FROM meta "
                       "WHERE k = 'published'), 0)))", (published,))

    def log_after(self, rev: int) -> Iterator[LogRow]:
        for rev_, key, from_key, event in self.db.execute("SELECT rev, key, from_key, event FROM log WHERE rev > ? "
                                                          "ORDER BY rev", (rev,)):
            yield LogRow(rev_, key, from_key, self.sealer.open(event, f"log/{rev_}"))

    def compact(self, log_before: int, applied_before: float, limit: int = 1 << 62) -> int:
        with self._write() as db:
            first = db.execute("SELECT MIN(rev) FROM log").fetchone()[0] or 0
            logged = db.execute("DELETE FROM log WHERE rev < ?", (min(log_before, first + limit),)).rowcount
            ids = db.execute("DELETE FROM replies WHERE rowid IN (SELECT rowid FROM replies WHERE at < ? ORDER BY at "
                             "LIMIT ?)", (applied_before, limit)).rowcount
        return max(logged, ids)

    def close(self) -> None:
        self.db.close()


def make_backend(settings: Settings) -> SqliteBackend:
    """The store's database, encrypting what the cluster's EncryptionConfiguration names (made on first use)."""
    return SqliteBackend(settings.data_dir / f"{settings.cluster}.store.db", fsync=settings.store_fsync,
                         sealer=Sealer(encryption.ensure(settings.encryption_file)))
