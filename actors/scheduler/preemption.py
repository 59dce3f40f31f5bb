"""DefaultPreemption: when no node fits, find the node where evicting the fewest, least important
lower-priority pods makes the pod fit, as kube-scheduler picks it."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from actors.scheduler.framework import Context, Diagnosis, Framework
from actors.scheduler.podinfo import PodInfo

MIN_CANDIDATES_PERCENT = 10
MIN_CANDIDATES = 100


@dataclass
class Candidate:
    node: str
    index: int
    victims: list[PodInfo]

    def order(self) -> tuple:
        """pickOneNodeForPreemption's rules, each breaking the previous one's ties."""
        top = max((v.priority for v in self.victims), default=-(2 ** 31))
        total = sum(v.priority + 2 ** 31 for v in self.victims)
        earliest = min((_start(v) for v in self.victims if v.priority == top), default="")
        return (0, top, total, len(self.victims), _negate(earliest), self.index)


def _start(pod: PodInfo) -> str:
    return (pod.pod.get("status") or {}).get("startTime") or pod.pod["metadata"].get("creationTimestamp") or ""


def _negate(timestamp: str) -> tuple:
    """Later start first: sort on the negated characters of an RFC 3339 timestamp."""
    return tuple(-ord(c) for c in timestamp)


def eligible(pod: PodInfo, table) -> bool:
    if pod.spec.get("preemptionPolicy") == "Never":
        return False
    node = pod.nominated_node
    if node and node in table.index:  # a victim of an earlier round is still terminating there
        i = table.index[node]
        if any(p.deleting and p.priority < pod.priority for p in table.pods_on(i)):
            return False
    return True


def fits(framework: Framework, ctx: Context, i: int) -> bool:
    idx = np.array([i])
    for plugin in framework.filters:
        if plugin.pre_filter(ctx) and plugin.filter(ctx, idx).codes[0]:
            return False
    return True


def victims_on(framework: Framework, ctx: Context, i: int) -> list[PodInfo] | None:
    """SelectVictimsOnNode: remove every lower-priority pod, then give back all it can spare."""
    table, pod = ctx.table, ctx.pod
    node = table.names[i]
    lower = [p for p in table.pods_on(i) if p.priority < pod.priority and not p.deleting]
    if not lower:
        return None
    for p in lower:
        table.remove_pod(p.uid)
    try:
        if not fits(framework, ctx, i):
            return None
        victims = []
        for p in sorted(lower, key=lambda p: (-p.priority, _start(p))):
            table.add_pod(p, node)
            if not fits(framework, ctx, i):
                table.remove_pod(p.uid)
                victims.append(p)
        return victims
    finally:
        for p in lower:
            table.add_pod(p, node)


def find(framework: Framework, ctx: Context, diagnosis: Diagnosis, offset: int) -> Candidate | None:
    """The best candidate among nodes that failed with a plain Unschedulable."""
    nodes = sorted(diagnosis.preemptable())
    if not nodes:
        return None
    limit = max(len(ctx.table) * MIN_CANDIDATES_PERCENT // 100, MIN_CANDIDATES)
    start = offset % len(nodes)
    candidates = []
    for i in (nodes[start:] + nodes[:start])[:limit]:
        victims = victims_on(framework, ctx, i)
        if victims:
            candidates.append(Candidate(ctx.table.names[i], i, victims))
    return min(candidates, key=Candidate.order) if candidates else None
