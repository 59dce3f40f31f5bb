"""Both backends keep what the store needs across a restart: objects, the log, applied ids."""
import pytest

from store.backend import Applied
from store.memory import MemoryBackend
from store.sqlite import SqliteBackend
from store.state import State


@pytest.fixture(params=["sqlite", "memory"])
def backend(request, tmp_path):
    return SqliteBackend(tmp_path / "s.db") if request.param == "sqlite" else MemoryBackend()


def _pod(name):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "x"}]}}


def test_commit_then_load_restores_state(backend):
    state = State(lambda: 0.0)
    state.seed_namespaces()
    state.create("Pod", "default", _pod("a"))
    state.delete("Pod", "default", "a", {})
    state.create("Pod", "default", _pod("b"))
    changes = state.take_changes()
    backend.commit(changes, [c.event() for c in changes], [Applied("m1", 5.0, b"reply")], published=3)
    rev, published, rows = backend.load()
    again = State(lambda: 0.0)
    again.load(rev, rows)
    assert rev == state.rev and published == 3
    assert set(again.objects) == set(state.objects)
    assert again.digests["pod.default.-"].digest == state.digests["pod.default.-"].digest
    assert [a.message_id for a in backend.load_applied()] == ["m1"]
    assert [r.rev for r in backend.log_after(5)] == list(range(6, rev + 1))


def test_compaction_drops_old_log_rows_and_applied_ids(backend):
    state = State(lambda: 0.0)
    state.seed_namespaces()
    changes = state.take_changes()
    backend.commit(changes, [c.event() for c in changes], [Applied("old", 1.0, b""), Applied("new", 9.0, b"")], 0)
    assert backend.compact(log_before=3, applied_before=5.0) == 2
    assert [r.rev for r in backend.log_after(0)] == [3, 4]
    assert [a.message_id for a in backend.load_applied()] == ["new"]


def test_compaction_goes_a_chunk_at_a_time(backend):
    state = State(lambda: 0.0)
    state.seed_namespaces()
    changes = state.take_changes()
    backend.commit(changes, [c.event() for c in changes], [Applied(f"id{i}", float(i), b"") for i in range(5)], 0)
    assert backend.compact(log_before=100, applied_before=100.0, limit=2) == 2
    assert [r.rev for r in backend.log_after(0)] == [3, 4]
    assert backend.compact(log_before=100, applied_before=100.0, limit=2) == 2
    assert backend.compact(log_before=100, applied_before=100.0, limit=2) == 1
    assert list(backend.load_applied()) == [] and list(backend.log_after(0)) == []


def test_a_database_of_an_earlier_store_keeps_its_replies(tmp_path):
    """Up to the fourteenth session the replies were keyed by message id; the store that claims such
    a database moves them over, oldest first, and they answer retries as before."""
    import sqlite3

    path = tmp_path / "old.db"
    old = sqlite3.connect(str(path), isolation_level=None)
    old.executescript("CREATE TABLE applied (id TEXT PRIMARY KEY, at REAL NOT NULL, reply BLOB NOT NULL) "
                      "WITHOUT ROWID; CREATE INDEX applied_at ON applied (at);")
    old.executemany("INSERT INTO applied VALUES (?, ?, ?)", [("zz", 1.0, b"first"), ("aa", 2.0, b"second")])
    old.close()
    backend = SqliteBackend(path)
    backend.claim()
    assert list(backend.load_applied()) == [Applied("zz", 1.0, b"first"), Applied("aa", 2.0, b"second")]
    tables = {row[0] for row in backend.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "applied" not in tables


def test_replies_load_oldest_first_and_compaction_drops_what_is_older_than_the_window(tmp_path):
    """Oldest first by time, wherever a clock step put them; what is older than the window goes."""
    backend = SqliteBackend(tmp_path / "s.db")
    backend.commit([], [], [Applied("a", 1.0, b""), Applied("b", 9.0, b""), Applied("c", 2.0, b"")], 0)
    assert [a.message_id for a in backend.load_applied()] == ["a", "c", "b"]
    assert backend.compact(log_before=0, applied_before=5.0) == 2
    assert [a.message_id for a in backend.load_applied()] == ["b"]
