"""NodePorts: a wanted hostPort must be free on the node (0.0.0.0 conflicts with every IP)."""
from __future__ import annotations

import numpy as np

from actors.scheduler.framework import UNSCHEDULABLE, Context, Filtered, Plugin

ANY = "0.0.0.0"


def conflicts(wanted: list[tuple[str, str, int]], used: list[tuple[str, str, int]]) -> bool:
    for ip, proto, port in wanted:
        for uip, uproto, uport in used:
            if (proto, port) == (uproto, uport) and (ip == ANY or uip == ANY or ip == uip):
                return True
    return False


class NodePorts(Plugin):
    name = "NodePorts"
    filters = True

    def pre_filter(self, ctx: Context) -> bool:
        return bool(ctx.pod.ports)

    def filter(self, ctx: Context, idx: np.ndarray) -> Filtered:
        table = ctx.table
        failed = np.array([conflicts(ctx.pod.ports, [p for pod in table.pods_on(int(i)) for p in pod.ports])
                           for i in idx], dtype=bool)
        return Filtered.single(failed, "node(s) didn't have free ports for the requested pod ports", UNSCHEDULABLE)
