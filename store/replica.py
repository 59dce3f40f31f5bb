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
from typing import Iterator

from bus import codec

PART_BYTES = 512 << 10  # base64 (messages carry no binary): 683 KiB, under the default 1 MiB limit
COPY = "copy.db"


def copy(path: Path, directory: Path) -> tempfile.TemporaryDirectory:
    """A consistent copy of the database at `path`, in a directory of its own under `directory`.
    Made from a connection of its own: in WAL mode its one read transaction sees one commit while
    the store's writer goes on committing (the copy used to be made on the writer's thread, holding
    every commit for as long as it took)."""
    tmp = tempfile.TemporaryDirectory(dir=directory, prefix="replica-")
    source = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    target = sqlite3.connect(str(Path(tmp.name) / COPY))
    try:
        source.backup(target)  # one step: one read transaction
    except BaseException:
        tmp.cleanup()
        raise
    finally:
        target.close()
        source.close()
    return tmp


def replies(tmp: tempfile.TemporaryDirectory) -> Iterator[bytes]:
    """The copy as reply parts (`items`: one base64 part each, `more` until the last), read from
    disk as they are sent; the copy is removed after the last, or when the sending stops."""
    try:
        path = Path(tmp.name) / COPY
        count = max(1, -(-path.stat().st_size // PART_BYTES))
        with open(path, "rb") as f:
            for i in range(count):
                part = base64.b64encode(f.read(PART_BYTES)).decode()
                yield codec.encode({"ok": True, "items": [part], "more": i < count - 1})
    finally:
        tmp.cleanup()


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
