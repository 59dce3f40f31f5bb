"""TaintToleration: NoSchedule/NoExecute taints filter, PreferNoSchedule taints score."""
from __future__ import annotations

import numpy as np

from actors.scheduler.framework import Context, Filtered, Plugin, default_normalize
from api.tolerations import tolerates

# kube-scheduler v1.35 (kubernetes PR #134740, also in 1.34): taint keys and values may be sensitive, so
# the reason names no taint and every untolerated taint counts under this one reason.
ERR_REASON_UNTOLERATED = "node(s) had untolerated taint(s)"


def _as_dict(taint: tuple) -> dict:
    return {"key": taint[0], "value": taint[1], "effect": taint[2]}


class TaintToleration(Plugin):
    name = "TaintToleration"
    filters = True
    scores = True

    def _untolerated(self, ctx: Context, taint_set: int) -> bool:
        """Whether the pod leaves a NoSchedule or NoExecute taint of this set untolerated (cached per cycle)."""
        cache = ctx.scratch.setdefault(self.name, {})
        if taint_set not in cache:
            cache[taint_set] = any(t["effect"] in ("NoSchedule", "NoExecute") and
                                   not any(tolerates(x, t) for x in ctx.pod.tolerations)
                                   for t in map(_as_dict, ctx.table.taint_sets[taint_set]))
        return cache[taint_set]

    def filter(self, ctx: Context, idx: np.ndarray) -> Filtered:
        sets = ctx.table.taint_set[idx]
        bad = [s for s in np.unique(sets) if self._untolerated(ctx, int(s))]
        return Filtered.single(np.isin(sets, bad), ERR_REASON_UNTOLERATED)

    def score(self, ctx: Context, idx: np.ndarray) -> np.ndarray:
        prefer = [t for t in ctx.pod.tolerations if (t.get("effect") or "") in ("", "PreferNoSchedule")]
        counts = {}
        for s in np.unique(ctx.table.taint_set[idx]):
            counts[s] = sum(1 for t in map(_as_dict, ctx.table.taint_sets[int(s)])
                            if t["effect"] == "PreferNoSchedule" and not any(tolerates(x, t) for x in prefer))
        lookup = np.zeros(int(ctx.table.taint_set[idx].max()) + 1, dtype=np.int64)
        for s, c in counts.items():
            lookup[s] = c
        return lookup[ctx.table.taint_set[idx]]

    def normalize(self, ctx: Context, scores: np.ndarray) -> np.ndarray:
        return default_normalize(scores, reverse=True)
