"""The replicated store's log (DESIGN.md "Scale-out", scale-out.md §4.2-4.3): entries of the stream
`{c}.store.wal` and the rule every reader applies to them, in stream order.

A store takes over by appending `claim(epoch)`; from then on only that store's batches of that
epoch, each continuing the accepted revision, are accepted. A deposed store's later batches are
rejected by every reader — itself included — so a confirm from the broker is not a commit: only
an entry's place in the log is. The rule is pure: the same entries in the same order give every
reader the same history."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import msgpack

CLAIM, BATCH, BEAT = "claim", "batch", "beat"


def claim(epoch: int, store: str, seen: int = 0) -> dict:
    """`store` takes over at `epoch`, having read the log up to offset `seen`."""
    return {"t": CLAIM, "epoch": epoch, "store": store, "seen": seen}


def batch(epoch: int, store: str, prev_rev: int, rev: int, payload: Any = None) -> dict:
    """One committed group of writes: revisions `prev_rev + 1 .. rev`, and what the database needs."""
    return {"t": BATCH, "epoch": epoch, "store": store, "prev": prev_rev, "rev": rev, "payload": payload}


def beat(epoch: int, store: str, rev: int) -> dict:
    """A read barrier, or an idle active store's sign of life."""
    return {"t": BEAT, "epoch": epoch, "store": store, "rev": rev}


def encode(entry: dict) -> bytes:
    return msgpack.packb(entry, use_bin_type=True)


def decode(raw: bytes) -> dict:
    entry = msgpack.unpackb(raw, raw=False)
    if not isinstance(entry, dict) or entry.get("t") not in (CLAIM, BATCH, BEAT):
        raise ValueError("not a WAL entry")
    return entry


@dataclass
class Rule:
    """The accepted history so far: the current epoch and its owner, the accepted revision."""

    epoch: int = 0
    owner: str | None = None
    rev: int = 0
    rejected: int = 0
    accepted: list[int] = field(default_factory=list)  # the accepted batches' revisions, in order
    history: bool = True  # keep `accepted` (tests compare histories; a store needs only the last)

    def apply(self, entry: dict) -> bool:
        """Whether `entry` is accepted; the state moves only when it is."""
        kind, epoch = entry.get("t"), entry.get("epoch", -1)
        if kind == CLAIM and epoch > self.epoch:
            self.epoch, self.owner = epoch, entry["store"]
            return True
        if kind == BATCH and epoch == self.epoch and entry["store"] == self.owner and entry["prev"] == self.rev:
            self.rev = entry["rev"]
            if self.history:
                self.accepted.append(self.rev)
            return True
        if kind == BEAT and epoch == self.epoch and entry["store"] == self.owner:
            return True
        self.rejected += 1
        return False

    def missed(self, entry: dict) -> bool:
        """Whether `entry` shows that this reader never read accepted entries before it (the stream's
        retention cut them): a batch of an epoch whose claim it has not read, or of the current
        owner continuing a revision past the accepted one. Neither can follow a reader that read
        everything: an owner appends batches only after reading its claim back, one at a time."""
        if entry.get("t") != BATCH:
            return False
        epoch = entry.get("epoch", -1)
        return epoch > self.epoch or (epoch == self.epoch and entry.get("store") == self.owner
                                      and entry.get("prev", 0) > self.rev)

    def owns(self, store: str, epoch: int) -> bool:
        """Whether `store` at `epoch` is the writer the log believes in."""
        return (self.owner, self.epoch) == (store, epoch)
