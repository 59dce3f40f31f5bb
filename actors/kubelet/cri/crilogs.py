"""Reading CRI container log files as the kubelet serves `kubectl logs` (k8s-containers.md §5;
pkg/kubelet/kuberuntime/logs/logs.go, pkg/util/tail).

A file holds one record a line, `<RFC3339Nano> <stdout|stderr> <P|F>[:tags] <text>\\n`, both streams
together; a long line is split into `P` records ended by an `F` one. Records are joined back by
leaving a `P` record's newline out. `tail` counts records from the end of the file, found by reading
back block by block (a big file is never read whole); `since` skips older records; `timestamps` puts
the record's time with 9 fixed digits before each line; `limit_bytes` cuts the output.

`read` is one answer. `read_from` serves `logs -f` in steps: it answers a cursor (an opaque string:
the file's inode, an offset, and whether a line is open) that the next step passes back; a cursor
into a file the kubelet has since rotated (renamed to `<n>.log.<time>`) finishes that file first.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Callable, Iterator

STREAMS = ("stdout", "stderr")
PARTIAL, FULL = "P", "F"
BLOCK = 8 * 1024
MAX_CHUNK = 256 * 1024  # one step of `read_from`, at most (a record longer than that still goes whole)
_TIME = re.compile(rb"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$")


class LogFormatError(ValueError):
    """A line that is not a CRI log record (the kubelet skips it)."""


def parse(line: bytes) -> tuple[str, str, bool, bytes]:
    """parseCRILog: (time as written, stream, partial?, text). A full record's text keeps its newline;
    a partial one's loses it, so pieces join."""
    parts = line.split(b" ", 3)
    if len(parts) < 2:
        raise LogFormatError("timestamp is not found")
    if not _TIME.match(parts[0]):
        raise LogFormatError(f'unexpected timestamp format "{parts[0].decode(errors="replace")}"')
    stream = parts[1].decode(errors="replace")
    if len(parts) < 3:
        raise LogFormatError("stream type is not found")
    if stream not in STREAMS:
        raise LogFormatError(f'unexpected stream type "{stream}"')
    if len(parts) < 4:
        raise LogFormatError("log tag is not found")
    partial = parts[2].split(b":")[0] == PARTIAL.encode()
    text = parts[3]
    if partial and text.endswith(b"\n"):
        text = text[:-1]
    return parts[0].decode(), stream, partial, text


def _nanos(stamp: str) -> tuple[int, str]:
    """(nanoseconds since the epoch, the time with 9 fixed fraction digits) of a record's time."""
    match = _TIME.match(stamp.encode())
    base, fraction, zone = match.group(1).decode(), (match.group(2) or b"").decode(), match.group(3).decode()
    seconds = int(datetime.fromisoformat(base + ("+00:00" if zone == "Z" else zone)).timestamp())
    fraction = fraction.ljust(9, "0")
    shown_zone = "Z" if zone in ("Z", "+00:00", "-00:00") else zone
    return seconds * 10**9 + int(fraction), f"{base}.{fraction}{shown_zone}"


def since_nanos(since: datetime | None) -> int | None:
    if since is None:
        return None
    if since.tzinfo is None:
        since = since.replace(tzinfo=timezone.utc)
    return int(since.timestamp()) * 10**9 + since.microsecond * 1000


def tail_start(f, lines: int | None, *, block: int = BLOCK) -> int:
    """tail.FindTailLineStartIndex: where the last `lines` records begin, read back from the end in
    blocks; a last record without its newline does not count. None or < 0: the file's start."""
    if lines is None or lines < 0:
        return 0
    size = f.seek(0, os.SEEK_END)
    left, count, buf, right = size, 0, b"", size
    while right > 0 and count <= lines:
        left = max(0, right - block)
        f.seek(left)
        buf = f.read(right - left)
        count += buf.count(b"\n")
        right = left
    while count > lines:
        cut = buf.index(b"\n") + 1
        buf, left, count = buf[cut:], left + cut, count - 1
    return left


@dataclass(frozen=True)
class Options:
    since: int | None = None  # nanoseconds since the epoch
    timestamps: bool = False
    streams: tuple[str, ...] = STREAMS


@dataclass
class Chunk:
    text: bytes
    cursor: str
    records: int = 0


class _Writer:
    """logWriter: since, timestamps, streams and the byte limit over records."""

    def __init__(self, options: Options, limit: int | None, new_line: bool = True):
        self.options, self.remain, self.new_line = options, limit, new_line
        self.out: list[bytes] = []
        self.size = 0

    @property
    def full(self) -> bool:
        return self.remain is not None and self.remain <= 0

    def render(self, line: bytes) -> bytes | None:
        """The record's output, or None when it is not shown; records the open-line state. Raises
        LogFormatError for a line that is no record."""
        stamp, stream, _, text = parse(line)
        nanos, shown = _nanos(stamp)
        prefix_allowed, self.new_line = self.new_line, (text.endswith(b"\n") if text else True)
        if (self.options.since is not None and nanos < self.options.since) or stream not in self.options.streams:
            return None
        if self.options.timestamps and prefix_allowed:
            return shown.encode() + b" " + text
        return text

    def write(self, rendered: bytes) -> None:
        if self.remain is not None:
            rendered = rendered[:self.remain]
            self.remain -= len(rendered)
        self.out.append(rendered)
        self.size += len(rendered)


def _records(f, start: int, complete_only: bool) -> Iterator[tuple[int, bytes]]:
    """(offset after, record) from `start`; a last record without its newline only if not complete_only."""
    f.seek(start)
    at = start
    for line in iter(f.readline, b""):
        if not line.endswith(b"\n") and complete_only:
            return
        at += len(line)
        yield at, line


def read(path: str, *, tail: int | None = None, since: datetime | None = None, timestamps: bool = False,
         limit_bytes: int | None = None, streams=STREAMS) -> bytes:
    """ReadLogs without follow: the log of the file at `path` after the options."""
    options = Options(since_nanos(since), timestamps, tuple(streams))
    writer = _Writer(options, limit_bytes if limit_bytes and limit_bytes > 0 else None)
    with open(path, "rb") as f:
        left = tail if tail is not None and tail >= 0 else None
        for _, line in _records(f, tail_start(f, tail), complete_only=False):
            if left == 0 or writer.full:
                break
            try:
                rendered = writer.render(line)
            except LogFormatError:
                continue  # the kubelet logs it and goes on; it counts for no line
            if rendered is not None:
                writer.write(rendered)
            if left is not None:
                left -= 1
    return b"".join(writer.out)


def _cursor(inode: int, offset: int, new_line: bool) -> str:
    return f"{inode}:{offset}:{0 if new_line else 1}"


def _parse_cursor(cursor: str) -> tuple[int, int, bool]:
    inode, offset, open_line = cursor.split(":")
    return int(inode), int(offset), open_line == "0"


def _rotated_with_inode(path: str, inode: int) -> str | None:
    folder, name = os.path.split(path)
    for entry in os.scandir(folder or "."):
        if entry.name.startswith(name + ".") and not entry.name.endswith((".gz", ".tmp")) \
                and entry.inode() == inode:
            return entry.path
    return None


def read_from(path: str, cursor: str | None = None, *, tail: int | None = None, since: datetime | None = None,
              timestamps: bool = False, limit_bytes: int | None = None, max_bytes: int = MAX_CHUNK,
              streams=STREAMS) -> Chunk:
    """One step of a followed log: complete records from `cursor` (or, without one, from the last
    `tail` records or the start), at most `max_bytes` of output, and the cursor to go on from."""
    options = Options(since_nanos(since), timestamps, tuple(streams))
    inode = os.stat(path).st_ino
    if cursor is None:
        with open(path, "rb") as f:
            return _step(f, inode, tail_start(f, tail), True, options, limit_bytes, max_bytes)
    old_inode, offset, new_line = _parse_cursor(cursor)
    if old_inode != inode:
        old = _rotated_with_inode(path, old_inode)
        if old is not None:
            with open(old, "rb") as f:
                chunk = _step(f, old_inode, offset, new_line, options, limit_bytes, max_bytes)
            if chunk.records:
                return chunk
            new_line = _parse_cursor(chunk.cursor)[2]
        offset = 0  # the old file is done (or gone): the new one from its start
    with open(path, "rb") as f:
        return _step(f, inode, offset, new_line, options, limit_bytes, max_bytes)


def _step(f, inode: int, start: int, new_line: bool, options: Options, limit: int | None, max_bytes: int) -> Chunk:
    writer = _Writer(options, limit if limit and limit > 0 else None, new_line)
    at, records = start, 0
    for after, line in _records(f, start, complete_only=True):
        if writer.full:
            break
        was_new_line = writer.new_line
        try:
            rendered = writer.render(line)
        except LogFormatError:
            rendered = None
        if rendered is not None and writer.out and writer.size + len(rendered) > max_bytes:
            writer.new_line = was_new_line
            break
        if rendered is not None:
            writer.write(rendered)
        at, records = after, records + 1
    return Chunk(b"".join(writer.out), _cursor(inode, at, writer.new_line), records)


def follow(path: str, *, running: Callable[[], bool], wait: Callable[[], None], tail: int | None = None,
           since: datetime | None = None, timestamps: bool = False, streams=STREAMS) -> Iterator[bytes]:
    """`logs -f`: the log's text as it grows, across rotations, until the container stops running and
    what it wrote is read. `wait` blocks until there may be more (the kubelet: 1 s or a file event)."""
    cursor = None
    while True:
        alive = running()
        chunk = read_from(path, cursor, tail=tail, since=since, timestamps=timestamps, streams=streams)
        cursor = chunk.cursor
        if chunk.text:
            yield chunk.text
        if chunk.records:
            continue
        if not alive:
            return
        wait()


def serve(path: str, options: dict, *, now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> dict:
    """The kubelet's `logs` answer for a CRI log file, in actors/kubelet/logs.py's shape: {ok, text,
    offset}. `offset` is a cursor (a string) that a follow step passes back as `offset`; the options
    are PodLogOptions' (`tail`, `limitBytes`, `timestamps`, `sinceSeconds` or `sinceTime`)."""
    since = None
    if options.get("sinceSeconds") is not None:
        since = now() - timedelta(seconds=int(options["sinceSeconds"]))
    elif options.get("sinceTime"):
        since = datetime.fromisoformat(str(options["sinceTime"]).replace("Z", "+00:00"))
    chunk = read_from(path, options.get("offset"), tail=options.get("tail"), since=since,
                      timestamps=bool(options.get("timestamps")), limit_bytes=options.get("limitBytes"))
    return {"ok": True, "text": chunk.text.decode("utf-8", "replace"), "offset": chunk.cursor}
