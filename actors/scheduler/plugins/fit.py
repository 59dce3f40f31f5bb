"""NodeResourcesFit (filter, and scoring by LeastAllocated, MostAllocated or RequestedToCapacityRatio)
and NodeResourcesBalancedAllocation, as Kubernetes computes them (integer maths)."""
from __future__ import annotations

import numpy as np

from actors.scheduler.framework import UNRESOLVABLE, UNSCHEDULABLE, Context, Filtered, Plugin
from actors.scheduler.nodes import NodeTable

DEFAULT_RESOURCES = (("cpu", 1), ("memory", 1))
DEFAULT_SHAPE = ((0, 0), (100, 10))
_ORDER = {"cpu": 0, "memory": 1, "ephemeral-storage": 2}


def _tdiv(a: np.ndarray, b: np.ndarray | int) -> np.ndarray:
    """Go's integer division (truncates toward zero)."""
    q = np.abs(a) // np.abs(b)
    return np.where((np.sign(a) * np.sign(b)) < 0, -q, q)


def _alloc(table: NodeTable, res: str, idx: np.ndarray) -> np.ndarray:
    col = table.alloc.get(res)
    return col[idx] if col is not None else np.zeros(len(idx), dtype=np.int64)


def _used(table: NodeTable, res: str, idx: np.ndarray) -> np.ndarray:
    col = table.req.get(res)
    return col[idx] if col is not None else np.zeros(len(idx), dtype=np.int64)


class NodeResourcesFit(Plugin):
    name = "NodeResourcesFit"
    filters = True
    scores = True

    def __init__(self, strategy: str = "LeastAllocated", resources=DEFAULT_RESOURCES, shape=DEFAULT_SHAPE,
                 ignored: tuple[str, ...] = ()):
        self.strategy = strategy
        self.resources = tuple((r, w or 1) for r, w in resources)
        self.shape = tuple((u, s * 10) for u, s in shape)
        self.ignored = set(ignored)

    # ---- filter --------------------------------------------------------------------------------
    def filter(self, ctx: Context, idx: np.ndarray) -> Filtered:
        table, pod = ctx.table, ctx.pod
        short: list[tuple[str, np.ndarray]] = []
        pods_alloc = _alloc(table, "pods", idx)
        short.append(("Too many pods", _used(table, "pods", idx) + 1 > pods_alloc))
        never = pods_alloc < 1
        for res in sorted((r for r in pod.requests if r not in self.ignored), key=lambda r: (_ORDER.get(r, 9), r)):
            qty, alloc = pod.requests[res], _alloc(table, res, idx)
            short.append((f"Insufficient {res}", qty > alloc - _used(table, res, idx)))
            never |= qty > alloc
        failing = np.logical_or.reduce([mask for _r, mask in short])
        codes = np.where(failing, np.where(never, UNRESOLVABLE, UNSCHEDULABLE), 0).astype(np.int8)
        return Filtered(codes, lambda pos: [reason for reason, mask in short if mask[pos]])

    # ---- score ---------------------------------------------------------------------------------
    def _requested(self, ctx: Context, res: str, idx: np.ndarray) -> np.ndarray:
        table, pod = ctx.table, ctx.pod
        if res == "cpu":
            return table.nz_cpu[idx] + pod.nonzero_cpu
        if res == "memory":
            return table.nz_mem[idx] + pod.nonzero_mem
        return _used(table, res, idx) + pod.requests.get(res, 0)

    def score(self, ctx: Context, idx: np.ndarray) -> np.ndarray:
        total = np.zeros(len(idx), dtype=np.int64)
        weights = np.zeros(len(idx), dtype=np.int64)
        for res, weight in self.resources:
            if res not in _ORDER and ctx.pod.requests.get(res, 0) == 0:
                continue  # a scalar the pod does not ask for
            alloc, req = _alloc(ctx.table, res, idx), self._requested(ctx, res, idx)
            has = alloc > 0
            safe = np.where(has, alloc, 1)
            part = self._resource_score(req, alloc, safe)
            if self.strategy == "RequestedToCapacityRatio":
                has &= part > 0
            total += np.where(has, part * weight, 0)
            weights += np.where(has, weight, 0)
        if self.strategy == "RequestedToCapacityRatio":
            return np.where(weights > 0, np.floor(total / np.where(weights > 0, weights, 1) + 0.5), 0).astype(np.int64)
        return np.where(weights > 0, total // np.where(weights > 0, weights, 1), 0)

    def _resource_score(self, req: np.ndarray, alloc: np.ndarray, safe: np.ndarray) -> np.ndarray:
        if self.strategy == "LeastAllocated":
            return np.where(req > alloc, 0, (alloc - req) * 100 // safe)
        if self.strategy == "MostAllocated":
            return np.minimum(req, alloc) * 100 // safe
        util = np.where(req > alloc, 100, req * 100 // safe)
        return self._broken_linear(util)

    def _broken_linear(self, p: np.ndarray) -> np.ndarray:
        shape = self.shape
        out = np.full(len(p), shape[-1][1], dtype=np.int64)
        done = np.zeros(len(p), dtype=bool)
        for i, (u, s) in enumerate(shape):
            here = ~done & (p <= u)
            if i == 0:
                out[here] = s
            else:
                pu, ps = shape[i - 1]
                out[here] = ps + _tdiv((s - ps) * (p[here] - pu), u - pu)
            done |= here
        return out


class NodeResourcesBalancedAllocation(Plugin):
    name = "NodeResourcesBalancedAllocation"
    scores = True

    def __init__(self, resources=DEFAULT_RESOURCES):
        self.resources = tuple(r for r, _w in resources)

    def pre_score(self, ctx: Context, idx: np.ndarray) -> bool:
        return any(ctx.pod.requests.get(r, 0) for r in self.resources)  # best-effort pods: Skip

    def score(self, ctx: Context, idx: np.ndarray) -> np.ndarray:
        fractions, valid = [], []
        for res in self.resources:
            if res not in _ORDER and ctx.pod.requests.get(res, 0) == 0:
                continue
            alloc = _alloc(ctx.table, res, idx)
            req = _used(ctx.table, res, idx) + ctx.pod.requests.get(res, 0)
            fractions.append(np.minimum(req / np.where(alloc > 0, alloc, 1), 1.0))
            valid.append(alloc > 0)
        if not fractions:
            return np.zeros(len(idx), dtype=np.int64)
        f, v = np.array(fractions), np.array(valid)
        count = v.sum(axis=0)
        mean = np.where(count > 0, (f * v).sum(axis=0) / np.maximum(count, 1), 0)
        if len(fractions) == 2:
            std = np.where(count == 2, np.abs(f[0] - f[1]) / 2, 0.0)
        else:
            std = np.where(count > 1, np.sqrt((((f - mean) ** 2) * v).sum(axis=0) / np.maximum(count, 1)), 0.0)
        return ((1 - std) * 100).astype(np.int64)
