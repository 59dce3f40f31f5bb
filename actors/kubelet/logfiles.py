"""A container instance's log on disk: the file the runtime names (`<container>.<n>.log`), rotated by
its writer when it reaches the size limit into `<container>.<n>.log.<start>` — `start` being the
offset of its first byte in the instance's whole output — and pruned to the file limit (Kubernetes'
`containerLogMaxSize` and `containerLogMaxFiles`, the current file included). Offsets into that
whole output survive rotation, so `logs -f` goes on across one; what was pruned is gone.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

OPEN_TRIES = 5  # a rotation between listing and opening the files: list again


@dataclass(frozen=True)
class Limits:
    max_bytes: int  # one file's size, at most
    max_files: int  # files kept, the current one included (2 at least, as the kubelet requires)


def rotated(path: Path) -> list[tuple[int, Path]]:
    """The rotated files of `path`, oldest first, each with its start offset."""
    found = []
    for file in path.parent.glob(f"{path.name}.*"):
        suffix = file.name[len(path.name) + 1:]
        if suffix.isdigit():
            found.append((int(suffix), file))
    return sorted(found)


class RotatingLog:
    """The writer's side (the shim's): appends, rotating before the file would pass `max_bytes`."""

    def __init__(self, path: Path, limits: Limits):
        self.path, self.limits = path, limits
        self.file = open(path, "ab")
        self.size = self.file.tell()
        old = rotated(path)
        self.start = old[-1][0] + old[-1][1].stat().st_size if old else 0

    def write(self, data: bytes) -> None:
        while data:
            room = self.limits.max_bytes - self.size
            if room <= 0:
                self._rotate()
                continue
            part, data = data[:room], data[room:]
            self.file.write(part)
            self.file.flush()
            self.size += len(part)

    def _rotate(self) -> None:
        self.file.close()
        os.replace(self.path, self.path.with_name(f"{self.path.name}.{self.start}"))
        self.start += self.size
        self.file, self.size = open(self.path, "ab"), 0
        for _, old in rotated(self.path)[:-(self.limits.max_files - 1)]:
            old.unlink(missing_ok=True)

    def close(self) -> None:
        self.file.close()


class LogStream:
    """The reader's side: every file of one instance held open as one stream of bytes, from offset
    `first` (what rotation has not pruned) to `end`. Open files stay readable through a rotation."""

    def __init__(self, segments: list[tuple[int, int, int]]):
        self.segments = segments  # (start, fd, size), oldest first
        self.first = segments[0][0]
        self.end = segments[-1][0] + segments[-1][2]

    @classmethod
    def open(cls, path: Path) -> "LogStream":
        for _ in range(OPEN_TRIES):
            listed = rotated(path)
            segments = [_segment(start, file) for start, file in listed]
            base = segments[-1][0] + segments[-1][2] if segments else 0
            segments.append(_segment(base, path))
            if rotated(path) == listed and all(fd >= 0 for _, fd, _ in segments):
                return cls(segments)
            _close(segments)
        return cls(segments)  # rotating faster than it can be listed: read what was opened

    def read(self, offset: int, count: int) -> bytes:
        """At most `count` bytes from `offset` on."""
        parts = []
        for start, fd, size in self.segments:
            if count <= 0 or offset >= start + size or fd < 0:
                continue
            at = max(offset, start)
            part = os.pread(fd, min(count, start + size - at), at - start)
            parts.append(part)
            count -= len(part)
            offset = at + len(part)
        return b"".join(parts)

    def close(self) -> None:
        _close(self.segments)

    def __enter__(self) -> "LogStream":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _segment(start: int, path: Path) -> tuple[int, int, int]:
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return start, -1, 0
    return start, fd, os.fstat(fd).st_size


def _close(segments: list[tuple[int, int, int]]) -> None:
    for _, fd, _ in segments:
        if fd >= 0:
            os.close(fd)
