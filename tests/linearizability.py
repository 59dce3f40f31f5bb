"""A linearizability checker for histories of reads and compare-and-swaps on registers: the Wing &
Gong search with Lowe's memo of (linearized set, state), as porcupine does it, one register at a
time (a history is linearizable when each key's is).

An operation is (client, call, return, kind, key, expect, value, result):
- `read` returned `result` (the value seen, None for absent);
- `cas` from `expect` to `value` returned True (applied), False (refused: a Conflict), or None
  (unknown: a timeout or a lost connection). An unknown operation may have taken effect at any time
  after its call or never: its return is infinite and it need not be linearized at all.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Any, Iterable


@dataclass(frozen=True)
class Op:
    client: str
    call: float
    ret: float
    kind: str  # read | cas
    key: str
    expect: Any = None
    value: Any = None
    result: Any = None

    @classmethod
    def unknown(cls, client: str, call: float, key: str, expect: Any, value: Any) -> "Op":
        return cls(client, call, math.inf, "cas", key, expect, value, None)


def _step(state: Any, op: Op) -> tuple[bool, Any]:
    """Whether `op` can take effect on `state` with the result it returned, and the state after."""
    if op.kind == "read":
        return op.result == state, state
    if op.result is False:
        return state != op.expect, state
    return state == op.expect, op.value  # True, or unknown and taking effect here


def _check_key(ops: list[Op], initial: Any) -> bool:
    ops = sorted(ops, key=lambda o: o.call)
    must = sum(1 << i for i, op in enumerate(ops) if op.ret != math.inf)
    seen: set[tuple[int, Any]] = set()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * len(ops) + 100))

    def search(done: int, state: Any) -> bool:
        if done & must == must:
            return True
        if (done, state) in seen:
            return False
        seen.add((done, state))
        horizon = min(op.ret for i, op in enumerate(ops) if not done >> i & 1)
        for i, op in enumerate(ops):
            if done >> i & 1 or op.call > horizon:
                continue
            ok, after = _step(state, op)
            if ok and search(done | 1 << i, after):
                return True
        return False

    return search(0, initial)


def linearizable(history: Iterable[Op], initial: dict[str, Any] | None = None) -> list[str]:
    """The keys whose history is not linearizable (none: the whole history is)."""
    by_key: dict[str, list[Op]] = {}
    for op in history:
        by_key.setdefault(op.key, []).append(op)
    return sorted(k for k, ops in by_key.items() if not _check_key(ops, (initial or {}).get(k)))
