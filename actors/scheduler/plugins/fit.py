"""NodeResourcesFit (filter, and scoring by LeastAllocated, MostAllocated or RequestedToCapacityRatio)
and NodeResourcesBalancedAllocation, as Kubernetes computes them (integer maths)."""
from __future__ import annotations

import functools

import numpy as np

from actors.scheduler.framework import UNRESOLVABLE, UNSCHEDULABLE, Context, Filtered, Plugin
from actors.scheduler.nodes import NodeTable
from actors.scheduler.podinfo import PodInfo

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


def _all_positive(values: np.ndarray) -> bool:
    """Whether every node has some of a resource: then no node needs masking."""
    return not np.count_nonzero(values <= 0)  # cheaper than a min() or an all()


@functools.lru_cache(maxsize=1024)
def _checked(requested: tuple[str, ...], ignored: frozenset[str]) -> tuple[tuple[str, str], ...]:
    """(reason, resource) for the requested resources the filter checks, in the order of its reasons
    (cpu, memory, ephemeral-storage, scalars by name). Pods ask for few sets of resources: this
    sorts once per set, not once per cycle."""
    wanted = sorted((r for r in requested if r not in ignored), key=lambda r: (_ORDER.get(r, 9), r))
    return tuple((f"Insufficient {res}", res) for res in wanted)


class NodeResourcesFit(Plugin):
    name = "NodeResourcesFit"
    filters = True
    scores = True

    def __init__(self, strategy: str = "LeastAllocated", resources=DEFAULT_RESOURCES, shape=DEFAULT_SHAPE,
                 ignored: tuple[str, ...] = ()):
        self.strategy = strategy
        self.resources = tuple((r, w or 1) for r, w in resources)
        self.shape = tuple((u, s * 10) for u, s in shape)
        self.ignored = frozenset(ignored)

    # ---- filter --------------------------------------------------------------------------------
    def _checks(self, pod: PodInfo) -> list[tuple[str, str, int]]:
        """(reason, resource, quantity wanted) in the order of the reasons: one more pod first."""
        return [("Too many pods", "pods", 1)] + \
            [(reason, res, pod.requests[res]) for reason, res in _checked(tuple(pod.requests), self.ignored)]

    def filter(self, ctx: Context, idx: np.ndarray) -> Filtered:
        table = ctx.table
        short: list[tuple[str, np.ndarray, int, np.ndarray]] = []  # (reason, short here, wanted, allocatable)
        failing = None
        for reason, res, qty in self._checks(ctx.pod):
            alloc = _alloc(table, res, idx)
            mask = qty > alloc - _used(table, res, idx)
            short.append((reason, mask, qty, alloc))
            failing = mask if failing is None else failing | mask
        if not np.count_nonzero(failing):  # the usual verdict: no codes or reasons to work out
            return Filtered.all_pass(len(idx))
        never = np.logical_or.reduce([qty > alloc for _r, _m, qty, alloc in short])  # more than the node has at all
        codes = np.where(failing, np.where(never, UNRESOLVABLE, UNSCHEDULABLE), 0).astype(np.int8)
        return Filtered(codes, lambda pos: [reason for reason, mask, _q, _a in short if mask[pos]])

    # ---- score ---------------------------------------------------------------------------------
    def _requested(self, ctx: Context, res: str, idx: np.ndarray) -> np.ndarray:
        table, pod = ctx.table, ctx.pod
        if res == "cpu":
            return table.nz_cpu[idx] + pod.nonzero_cpu
        if res == "memory":
            return table.nz_mem[idx] + pod.nonzero_mem
        return _used(table, res, idx) + pod.requests.get(res, 0)

    def score(self, ctx: Context, idx: np.ndarray) -> np.ndarray:
        """The weighted mean of the resources' scores over the resources each node has."""
        total = np.zeros(len(idx), dtype=np.int64)
        weights: int | np.ndarray = 0  # an int while every node counts every resource so far
        for res, weight in self.resources:
            if res not in _ORDER and ctx.pod.requests.get(res, 0) == 0:
                continue  # a scalar the pod does not ask for
            alloc, req = _alloc(ctx.table, res, idx), self._requested(ctx, res, idx)
            # a node counts a resource it has (and, for RequestedToCapacityRatio, that scores above 0)
            if self.strategy != "RequestedToCapacityRatio" and _all_positive(alloc):
                total += self._resource_score(req, alloc, alloc) * weight
                weights += weight
                continue
            has = alloc > 0
            part = self._resource_score(req, alloc, np.where(has, alloc, 1))
            if self.strategy == "RequestedToCapacityRatio":
                has &= part > 0
            total += np.where(has, part * weight, 0)
            weights = weights + np.where(has, weight, 0)
        return self._mean(total, weights)

    def _mean(self, total: np.ndarray, weights: int | np.ndarray) -> np.ndarray:
        if isinstance(weights, int):  # the same on every node (RequestedToCapacityRatio: only when 0)
            return total // weights if weights > 0 else np.zeros(len(total), dtype=np.int64)
        counted = weights > 0
        safe = np.where(counted, weights, 1)
        if self.strategy == "RequestedToCapacityRatio":
            return np.where(counted, np.floor(total / safe + 0.5), 0).astype(np.int64)
        return np.where(counted, total // safe, 0)

    def _resource_score(self, req: np.ndarray, alloc: np.ndarray, safe: np.ndarray) -> np.ndarray:
        if self.strategy == "LeastAllocated":  # a request beyond allocatable scores 0: clip the negative
            return np.maximum((alloc - req) * 100 // safe, 0)
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
        fractions, valid = [], []  # per resource: requested / allocatable (at most 1), and where it counts
        for res in self.resources:
            if res not in _ORDER and ctx.pod.requests.get(res, 0) == 0:
                continue
            alloc = _alloc(ctx.table, res, idx)
            req = _used(ctx.table, res, idx) + ctx.pod.requests.get(res, 0)
            everywhere = _all_positive(alloc)
            fractions.append(np.minimum(req / (alloc if everywhere else np.where(alloc > 0, alloc, 1)), 1.0))
            valid.append(None if everywhere else alloc > 0)
        if not fractions:
            return np.zeros(len(idx), dtype=np.int64)
        if len(fractions) == 2 and valid[0] is None and valid[1] is None:  # the usual case: no masks
            std = np.abs(fractions[0] - fractions[1]) / 2
            return ((1 - std) * 100).astype(np.int64)
        return self._deviation_score(fractions, [np.ones(len(idx), dtype=bool) if v is None else v for v in valid])

    @staticmethod
    def _deviation_score(fractions: list[np.ndarray], valid: list[np.ndarray]) -> np.ndarray:
        """100 × (1 − the standard deviation of the fractions a node has)."""
        f, v = np.array(fractions), np.array(valid)
        count = v.sum(axis=0)
        mean = np.where(count > 0, (f * v).sum(axis=0) / np.maximum(count, 1), 0)
        if len(fractions) == 2:
            std = np.where(count == 2, np.abs(f[0] - f[1]) / 2, 0.0)
        else:
            std = np.where(count > 1, np.sqrt((((f - mean) ** 2) * v).sum(axis=0) / np.maximum(count, 1)), 0.0)
        return ((1 - std) * 100).astype(np.int64)
