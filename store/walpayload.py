"""What a WAL batch entry carries: exactly the arguments of `Backend.commit`, so every store applies
an accepted batch to its own database as the active store committed it (pure logic)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bus import codec
from store.backend import Applied
from store.records import ObjKey


@dataclass(frozen=True)
class Replayed:
    """A committed change as a standby replays it: what the backends read of a `records.Change`."""

    rev: int
    type: str
    oid: ObjKey
    key: str
    from_key: str | None
    raw: bytes

    @property
    def entry(self) -> "Replayed":
        return self

    @property
    def obj(self) -> dict:
        return codec.decode(self.raw)


def encode(changes: list, events: list[bytes], applied: list[Applied], published: int) -> dict[str, Any]:
    return {"changes": [[c.rev, c.type, list(c.oid), c.key, c.from_key, c.entry.raw] for c in changes],
            "events": events, "applied": [[a.message_id, a.at, a.reply, a.kind] for a in applied],
            "published": published}


def decode(payload: dict[str, Any]) -> tuple[list[Replayed], list[bytes], list[Applied], int]:
    changes = [Replayed(rev, type_, tuple(oid), key, from_key, raw)
               for rev, type_, oid, key, from_key, raw in payload["changes"]]
    applied = [Applied(*row) for row in payload["applied"]]  # [id, at, reply] from a store before kinds
    return changes, list(payload["events"]), applied, int(payload["published"])
