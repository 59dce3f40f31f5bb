"""NodeAffinity: nodeSelector and required terms filter; preferred terms score."""
from __future__ import annotations

import numpy as np

from actors.scheduler.framework import Context, Filtered, Plugin, default_normalize
from actors.scheduler.plugins.nodeselect import required_node_mask, term_mask


def _node_affinity(ctx: Context) -> dict:
    return ctx.pod.affinity.get("nodeAffinity") or {}


class NodeAffinity(Plugin):
    name = "NodeAffinity"
    filters = True
    scores = True

    def pre_filter(self, ctx: Context) -> bool:
        return bool(ctx.pod.spec.get("nodeSelector")) or \
            "requiredDuringSchedulingIgnoredDuringExecution" in _node_affinity(ctx)

    def filter(self, ctx: Context, idx: np.ndarray) -> Filtered:
        ok = required_node_mask(ctx.table, idx, ctx.pod.spec)
        return Filtered.single(~ok, "node(s) didn't match Pod's node affinity/selector")

    def _preferred(self, ctx: Context) -> list[dict]:
        return [t for t in _node_affinity(ctx).get("preferredDuringSchedulingIgnoredDuringExecution") or []
                if t.get("weight")]

    def pre_score(self, ctx: Context, idx: np.ndarray) -> bool:
        return bool(self._preferred(ctx))

    def score(self, ctx: Context, idx: np.ndarray) -> np.ndarray:
        total = np.zeros(len(idx), dtype=np.int64)
        for term in self._preferred(ctx):
            mask = term_mask(ctx.table, idx, term.get("preference") or {})
            if mask is not None:
                total += np.where(mask, term["weight"], 0)
        return total

    def normalize(self, ctx: Context, scores: np.ndarray) -> np.ndarray:
        return default_normalize(scores, reverse=False)
