"""TaintToleration: NoSchedule/NoExecute taints filter, PreferNoSchedule taints score."""
from __future__ import annotations

import numpy as np

from actors.scheduler.framework import UNRESOLVABLE, Context, Filtered, Plugin, default_normalize
from api.tolerations import tolerates


def _as_dict(taint: tuple) -> dict:
    return {"key": taint[0], "value": taint[1], "effect": taint[2]}


class TaintToleration(Plugin):
    name = "TaintToleration"
    filters = True
    scores = True

    def _first_untolerated(self, ctx: Context, taint_set: int) -> dict | None:
        cache = ctx.scratch.setdefault(self.name, {})
        if taint_set not in cache:
            cache[taint_set] = next(
                (t for t in map(_as_dict, ctx.table.taint_sets[taint_set])
                 if t["effect"] in ("NoSchedule", "NoExecute") and not any(tolerates(x, t) for x in ctx.pod.tolerations)),
                None)
        return cache[taint_set]

    def filter(self, ctx: Context, idx: np.ndarray) -> Filtered:
        sets = ctx.table.taint_set[idx]
        bad = {s: self._first_untolerated(ctx, int(s)) for s in np.unique(sets)}
        failing = np.array([bad[s] is not None for s in sets], dtype=bool) if any(bad.values()) else \
            np.zeros(len(idx), dtype=bool)

        def reasons(pos: int) -> list[str]:
            taint = bad[sets[pos]]
            return [f"node(s) had untolerated taint {{{taint['key']}: {taint['value']}}}"]

        return Filtered(np.where(failing, UNRESOLVABLE, 0).astype(np.int8), reasons)

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
