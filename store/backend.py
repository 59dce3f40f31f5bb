"""What the store needs of its persistence: load at start, commit a batch, replay the log."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Protocol

from store.records import Change, ObjKey


@dataclass(frozen=True)
class Applied:
    """A command's id and its first reply, kept for the dedupe window."""

    message_id: str
    at: float
    reply: bytes
    kind: str = ""  # the command's kind: a Secret's reply is encrypted at rest like the Secret


@dataclass(frozen=True)
class LogRow:
    rev: int
    key: str
    from_key: str | None
    event: bytes


class Fenced(Exception):
    """Another store process claimed the database after this one: this one must not write again."""


class Backend(Protocol):
    def claim(self) -> int:
        """Take the database over: from now on, writes of every earlier claimant fail with Fenced."""

    def load(self) -> tuple[int, int, Iterator[tuple[ObjKey, dict, bytes]]]:
        """(revision, last published revision, objects with their encoding)."""

    def load_applied(self) -> Iterator[Applied]: ...

    def commit(self, changes: list[Change], events: list[bytes], applied: list[Applied], published: int,
               wal: dict[str, int] | None = None) -> None:
        """Write everything in one durable transaction (with the replicated log's position, if given)."""

    def log_after(self, rev: int) -> Iterator[LogRow]: ...

    def compact(self, log_before: int, applied_before: float, limit: int = 1 << 62) -> int:
        """Drop log rows below a revision and dedupe ids older than a time, at most `limit` of each;
        returns the larger of the two counts (`limit`: there may be more)."""

    def close(self) -> None: ...
