"""What the store's state machine keeps and hands on: a stored object (`Entry`), one committed revision
(`Change`, the event it publishes and the row it leaves) and an object's key in the state."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from api.registry import KindInfo
from bus import codec

ObjKey = tuple[str, str, str]  # kind, namespace ("" when cluster-scoped), name


@dataclass
class Entry:
    """A stored object, its routing key and its msgpack encoding (made once, sent many times).
    Stored objects are never changed in place: a change builds new dicts around shared parts."""

    obj: dict
    key: str  # routing key
    raw: bytes


@dataclass
class Change:
    """One committed revision: the event it publishes and the row it leaves in the store."""

    rev: int
    type: str  # ADDED MODIFIED DELETED
    kind: str
    oid: ObjKey
    prev: int
    from_key: str | None
    entry: Entry

    @property
    def key(self) -> str:
        return self.entry.key

    @property
    def obj(self) -> dict:
        return self.entry.obj

    def event(self) -> bytes:
        fields: dict[str, Any] = {"type": self.type, "kind": self.kind, "rev": self.rev, "prev": self.prev}
        if self.from_key:
            fields["from"] = self.from_key
        return codec.pack_map(fields, {"object": self.entry.raw})


def oid_of(info: KindInfo, namespace: str | None, name: str) -> ObjKey:
    return (info.kind, (namespace or "") if info.namespaced else "", name)
