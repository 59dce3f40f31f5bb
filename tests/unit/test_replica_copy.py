"""store.replica: a copy of a store's database for a store behind the WAL, made beside the writer
and sent a part at a time from disk."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import msgpack

from store import replica


def _writer(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE t (v)")
    db.execute("INSERT INTO t VALUES (1)")
    return db


def test_a_copy_is_made_while_a_commit_is_under_way_and_holds_what_was_committed(tmp_path):
    writer = _writer(tmp_path / "store.db")
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO t VALUES (2)")  # the writer's transaction, open while the copy is made
    made = replica.copy(tmp_path / "store.db", tmp_path)
    writer.execute("COMMIT")
    replies = [msgpack.unpackb(r) for r in replica.replies(made)]
    installed = tmp_path / "installed.db"
    replica.install(installed, [part for r in replies for part in r["items"]])
    with sqlite3.connect(str(installed)) as copy:
        assert [v for (v,) in copy.execute("SELECT v FROM t")] == [1]


def test_the_copy_leaves_in_parts_and_is_removed_after_the_last(tmp_path, monkeypatch):
    monkeypatch.setattr(replica, "PART_BYTES", 1024)
    writer = _writer(tmp_path / "store.db")
    writer.execute("INSERT INTO t VALUES (?)", ("x" * 5000,))
    made = replica.copy(tmp_path / "store.db", tmp_path)
    replies = [msgpack.unpackb(r) for r in replica.replies(made)]
    assert len(replies) > 2 and [r["more"] for r in replies] == [True] * (len(replies) - 1) + [False]
    assert all(r["ok"] and len(r["items"]) == 1 for r in replies)
    assert not Path(made.name).exists()
