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
from dataclasses import dataclass, replace
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


def _settle_unknowns(ops: list[Op], initial: Any) -> tuple[list[Op], list[Op], bool]:
    """When every write's value is unique (and not the initial one), an unknown write whose value
    someone saw — a read, a successful CAS that expected it, or an unknown write that must have
    happened and expected it — took effect before the first such witness returned: it gets that
    return and must be linearized. One whose value nobody saw is set apart: it can only have taken
    effect where nothing but refused CASes came after (anything else would have seen it). With
    values that repeat, every unknown write is set apart and may take effect anywhere after its call.
    Returns the ops to linearize, the ones set apart, and whether those wait for refusals only."""
    unknown = [op for op in ops if op.ret == math.inf]
    rest = [op for op in ops if op.ret != math.inf]
    values = [op.value for op in ops if op.kind == "cas"]
    if len(set(values)) != len(values) or initial in values:
        return rest, unknown, False
    witnessed: dict[Any, float] = {}
    for op in rest:
        if op.kind == "read" or op.result is True:
            seen = op.result if op.kind == "read" else op.expect
            witnessed[seen] = min(witnessed.get(seen, math.inf), op.ret)
    changed = True
    while changed:  # a write that must have happened saw its expected value written before it
        changed = False
        for op in unknown:
            at = witnessed.get(op.value, math.inf)
            if at < witnessed.get(op.expect, math.inf):
                witnessed[op.expect], changed = at, True
    forced = [replace(op, ret=witnessed[op.value]) for op in unknown if op.value in witnessed]
    return rest + forced, [op for op in unknown if op.value not in witnessed], True


def _check_key(ops: list[Op], initial: Any) -> bool:
    known, unseen, gated = _settle_unknowns(ops, initial)
    known.sort(key=lambda o: o.call)
    ops = known + unseen
    n, everything = len(known), (1 << len(known)) - 1
    refusals = sum(1 << i for i, op in enumerate(known) if op.result is False)
    seen: set[tuple[int, Any]] = set()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * len(ops) + 100))

    def candidates(done: int) -> list[int]:
        """The ops that may take effect next: called before the earliest return of the ones not done
        (the known ops are in call order, so the scan stops there), and the ones set apart (when
        gated, once only refusals are left)."""
        known_done = done & everything
        lo = ((known_done + 1) & ~known_done).bit_length() - 1  # the first known op not done
        horizon, found = math.inf, []
        for i in range(lo, n):
            op = known[i]
            if op.call > horizon:
                break
            if not done >> i & 1:
                horizon = min(horizon, op.ret)
                found.append(i)
        found = [i for i in found if known[i].call <= horizon]
        if not gated or everything & ~done & ~refusals == 0:
            found += [n + j for j, op in enumerate(unseen) if not done >> (n + j) & 1 and op.call <= horizon]
        return found

    def search(done: int, state: Any) -> bool:
        if done & everything == everything:
            return True
        if (done, state) in seen:
            return False
        seen.add((done, state))
        for i in candidates(done):
            ok, after = _step(state, ops[i])
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
