"""TaintToleration: NoSchedule/NoExecute taints filter, PreferNoSchedule taints score."""
from __future__ import annotations

from typing import Callable

import numpy as np

from actors.scheduler.framework import MAX_SCORE, Context, Filtered, Plugin, default_normalize
from actors.scheduler.nodes import NodeTable
from api.tolerations import tolerates

# kube-scheduler v1.35 (kubernetes PR #134740, also in 1.34): taint keys and values may be sensitive, so
# the reason names no taint and every untolerated taint counts under this one reason.
ERR_REASON_UNTOLERATED = "node(s) had untolerated taint(s)"


def _as_dict(taint: tuple) -> dict:
    return {"key": taint[0], "value": taint[1], "effect": taint[2]}


def _untainted(table: NodeTable) -> bool:
    """No node was ever tainted: every verdict passes and every score is the same."""
    return not any(table.taint_sets)


class TaintToleration(Plugin):
    name = "TaintToleration"
    filters = True
    scores = True

    def _per_set(self, ctx: Context, what: str, count: Callable[[tuple], int]) -> np.ndarray:
        """`count` of every taint set the table knows, by set id (computed once per cycle; the sets
        are few and only ever added)."""
        cache = ctx.scratch.setdefault(self.name, {})
        sets = ctx.table.taint_sets
        if len(cache.get(what, ())) != len(sets):
            cache[what] = np.fromiter((count(s) for s in sets), dtype=np.int64, count=len(sets))
        return cache[what]

    def filter(self, ctx: Context, idx: np.ndarray) -> Filtered:
        if _untainted(ctx.table):
            return Filtered.all_pass(len(idx))
        tolerations = ctx.pod.tolerations
        bad = self._per_set(ctx, "untolerated", lambda taints: any(
            t["effect"] in ("NoSchedule", "NoExecute") and not any(tolerates(x, t) for x in tolerations)
            for t in map(_as_dict, taints)))
        if not bad.any():
            return Filtered.all_pass(len(idx))
        return Filtered.single(bad[ctx.table.taint_set[idx]] > 0, ERR_REASON_UNTOLERATED)

    def score(self, ctx: Context, idx: np.ndarray) -> np.ndarray:
        if _untainted(ctx.table):
            return np.zeros(len(idx), dtype=np.int64)
        prefer = [t for t in ctx.pod.tolerations if (t.get("effect") or "") in ("", "PreferNoSchedule")]
        counts = self._per_set(ctx, "intolerable", lambda taints: sum(
            1 for t in map(_as_dict, taints)
            if t["effect"] == "PreferNoSchedule" and not any(tolerates(x, t) for x in prefer)))
        if not counts.any():
            return np.zeros(len(idx), dtype=np.int64)
        return counts[ctx.table.taint_set[idx]]

    def normalize(self, ctx: Context, scores: np.ndarray) -> np.ndarray:
        if _untainted(ctx.table):  # all scores 0: what default_normalize makes of them, without the max
            return np.full(len(scores), MAX_SCORE, dtype=np.int64)
        return default_normalize(scores, reverse=True)
