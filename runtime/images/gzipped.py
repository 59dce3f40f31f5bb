"""A layer's gzip, kept on disk under its diff_id (the sha256 of the tar it compresses).

The tar of a layer is made again at every build — its bytes are what makes a build reproducible, and its
sha256 names the entry — but compressing it is the build's cost (2 s for the interpreter's 35 MB, every
build, in every process that builds). The same tar always compresses to the same bytes (level 6, mtime
0), so the gzip is kept in `~/.cache/kubus/layers/<hex>.gz` (`KUBUS_LAYER_CACHE`; empty: none kept) and
read back by the next build. Within `anew()` every layer is compressed again and nothing is read: what
a build that proves itself reproducible uses. An entry unused for 30 days is removed when one is written."""
from __future__ import annotations

import gzip
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

LEVEL = 6
KEPT_S = 30 * 24 * 3600
_fresh = False  # within anew()


def folder() -> Path | None:
    configured = os.environ.get("KUBUS_LAYER_CACHE")
    if configured is None:
        return Path.home() / ".cache" / "kubus" / "layers"
    return Path(configured) if configured else None


def compress(tar: bytes) -> bytes:
    return gzip.compress(tar, compresslevel=LEVEL, mtime=0)


def gzipped(tar: bytes, diff_id: str) -> bytes:
    """The gzip of `tar` (whose sha256 is `diff_id`): the kept one, else made and kept."""
    where = folder()
    if where is None or _fresh:
        return compress(tar)
    path = where / f"{diff_id.removeprefix('sha256:')}.gz"
    try:
        data = path.read_bytes()
        os.utime(path)
        return data
    except FileNotFoundError:
        pass
    data = compress(tar)
    _keep(where, path, data)
    return data


@contextmanager
def anew() -> Iterator[None]:
    """Within the block every layer is compressed again, none read from (or written to) the disk."""
    global _fresh
    _fresh = True
    try:
        yield
    finally:
        _fresh = False


def _keep(where: Path, path: Path, data: bytes) -> None:
    try:
        where.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.part")
        partial.write_bytes(data)
        partial.replace(path)  # whole or not there: a build beside this one reads no half
        _prune(where)
    except OSError:  # a read-only or full home: the build goes on without keeping it
        pass


def _prune(where: Path) -> None:
    cutoff = time.time() - KEPT_S
    for entry in where.glob("*.gz"):
        try:
            if entry.stat().st_mtime < cutoff:
                entry.unlink()
        except FileNotFoundError:
            pass
