"""A copy of a store's database for a store behind the WAL's retention (scale-out.md §4.5): the
objects, the applied request ids, the event log's tail, the revision and the WAL position it was
cut at are all in one SQLite file, so a consistent copy of that file is the replica snapshot. It
travels over RPC in parts; the store that asked writes it in place of its own database and starts
again from it, following the log from the copy's position."""
from __future__ import annotations

import base64
import os
import sqlite3
import sys
import tempfile
from pathlib import Path

PART_BYTES = 512 << 10  # base64 (messages carry no binary): 683 KiB, under the default 1 MiB limit


def copy(db: sqlite3.Connection, directory: Path) -> list[str]:
    """The database as of now (call on the thread that commits, between two commits), in base64
    parts."""
    with tempfile.TemporaryDirectory(dir=directory, prefix="replica-") as tmp:
        path = Path(tmp) / "copy.db"
        target = sqlite3.connect(str(path))
        try:
            db.backup(target)
        finally:
            target.close()
        data = path.read_bytes()
    return [base64.b64encode(data[i:i + PART_BYTES]).decode() for i in range(0, len(data), PART_BYTES)] or [""]


def install(path: Path, parts: list[str]) -> int:
    """Put the copy in place of the database at `path`, durably (its old WAL files go with it);
    returns its size in bytes."""
    fresh = path.with_name(path.name + ".replica")
    size = 0
    with open(fresh, "wb") as f:
        for part in parts:
            size += f.write(base64.b64decode(part, validate=True))
        f.flush()
        os.fsync(f.fileno())
    for stale in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        stale.unlink(missing_ok=True)
    os.replace(fresh, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
    return size


def restart() -> None:
    """This store process again, from the start (same pid, so a supervisor or test still owns it)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, "-m", "store", *sys.argv[1:]])
