"""NodeUnschedulable and NodeName."""
from __future__ import annotations

import numpy as np

from actors.scheduler.framework import Context, Filtered, Plugin
from api.tolerations import tolerates

UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}


class NodeUnschedulable(Plugin):
    name = "NodeUnschedulable"
    filters = True

    def filter(self, ctx: Context, idx: np.ndarray) -> Filtered:
        if any(tolerates(t, UNSCHEDULABLE_TAINT) for t in ctx.pod.tolerations):
            return Filtered.all_pass(len(idx))
        return Filtered.single(ctx.table.unschedulable[idx], "node(s) were unschedulable")


class NodeName(Plugin):
    name = "NodeName"
    filters = True

    def pre_filter(self, ctx: Context) -> bool:
        return bool(ctx.pod.node_name)

    def filter(self, ctx: Context, idx: np.ndarray) -> Filtered:
        wanted = ctx.table.index.get(ctx.pod.node_name, -1)
        return Filtered.single(idx != wanted, "node(s) didn't match the requested node name")
