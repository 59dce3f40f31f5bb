"""The scheduling framework: plugins at extension points, statuses as values, one cycle's context,
filtering with Kubernetes' sampling, weighted scores and a random choice among the best."""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from actors.scheduler.nodes import NodeTable
from actors.scheduler.podinfo import PodInfo

SUCCESS, UNSCHEDULABLE, UNRESOLVABLE = 0, 1, 2
MAX_SCORE = 100
MIN_FEASIBLE = 100
MIN_FEASIBLE_PERCENT = 5
MIN_CHUNK = 256  # nodes filtered at a time while looking for enough feasible ones


@dataclass
class Filtered:
    """A filter's verdict for nodes `idx`: a code per node and the reasons of the failing ones.
    `all_passed` says no code is set, so the framework need not look for failures. `reasons` is
    called only if the diagnosis is read, maybe after the table changed (a pod assumed, nominated
    pods taken back off), so it must use what the filter computed, never the table."""

    codes: np.ndarray
    reasons: Callable[[int], list[str]]  # position in idx -> reasons
    all_passed: bool = False

    @classmethod
    def single(cls, failed: np.ndarray, reason: str, code: int = UNRESOLVABLE) -> "Filtered":
        if not np.count_nonzero(failed):  # the usual verdict: no codes to build (count_nonzero is the cheap any)
            return cls.all_pass(len(failed))
        return cls(np.where(failed, code, SUCCESS).astype(np.int8), lambda _pos: [reason])

    @classmethod
    def all_pass(cls, count: int) -> "Filtered":
        return cls(np.zeros(count, dtype=np.int8), _no_reasons, True)


def _no_reasons(_pos: int) -> list[str]:
    return []


@dataclass
class Context:
    """One scheduling cycle: the pod, the nodes, and the plugins' scratch space."""

    pod: PodInfo
    table: NodeTable
    scratch: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. replicasets for default spreading


class Plugin:
    """Override what applies; `pre_filter`/`pre_score` returning False means Skip for this pod."""

    name = "Plugin"
    filters = False
    scores = False

    def pre_filter(self, ctx: Context) -> bool:
        return True

    def filter(self, ctx: Context, idx: np.ndarray) -> Filtered:
        return Filtered.all_pass(len(idx))

    def pre_score(self, ctx: Context, idx: np.ndarray) -> bool:
        return True

    def score(self, ctx: Context, idx: np.ndarray) -> np.ndarray:
        return np.zeros(len(idx), dtype=np.int64)

    def normalize(self, ctx: Context, scores: np.ndarray) -> np.ndarray:
        return scores


def default_normalize(scores: np.ndarray, reverse: bool) -> np.ndarray:
    top = int(scores.max()) if len(scores) else 0
    if top == 0:
        return np.full(len(scores), MAX_SCORE, dtype=np.int64) if reverse else scores
    out = MAX_SCORE * scores // top
    return MAX_SCORE - out if reverse else out


def num_feasible_to_find(total: int, percentage: int | None) -> int:
    if total < MIN_FEASIBLE:
        return total
    pct = percentage or 0
    if pct <= 0:
        pct = max(50 - total // 125, MIN_FEASIBLE_PERCENT)
    return max(total * pct // 100, MIN_FEASIBLE)


@dataclass
class Rejected:
    """One filter call's failing nodes, kept as arrays: their reasons are asked for only when read."""

    nodes: np.ndarray  # node indices
    positions: np.ndarray  # their positions in the call's idx, which `reasons` takes
    codes: np.ndarray
    reasons: Callable[[int], list[str]]
    plugin: str


class Diagnosis:
    """Why nodes failed: per node its code and reasons, and which plugin said so.

    A pod may fail on thousands of nodes and nothing may ever read why (it is scheduled elsewhere),
    so filters' verdicts are kept as arrays and turned into `failures` on first read. A node is
    filtered once a cycle (chunks are disjoint, and failing nodes leave the chunk), so its failure
    is the first failing filter's, as in kube-scheduler."""

    def __init__(self, total: int):
        self.total = total
        self._rejected: list[Rejected] = []
        self._failures: dict[int, tuple[int, list[str], str]] | None = None

    def reject(self, rejected: Rejected) -> None:
        self._rejected.append(rejected)
        self._failures = None

    @property
    def failures(self) -> dict[int, tuple[int, list[str], str]]:
        """Node index -> (code, reasons, plugin), in the order the nodes failed."""
        if self._failures is None:
            self._failures = {}
            for r in self._rejected:
                for node, pos, code in zip(r.nodes.tolist(), r.positions.tolist(), r.codes.tolist()):
                    self._failures[node] = (code, r.reasons(pos), r.plugin)
        return self._failures

    def message(self) -> str:
        """Kubernetes' FitError text: `0/3 nodes are available: 1 node(s) had ..., 2 Insufficient cpu.`"""
        if self.total == 0:
            return "no nodes available to schedule pods"
        counts = Counter(reason for _code, reasons, _p in self.failures.values() for reason in reasons)
        listed = ", ".join(sorted(f"{n} {reason}" for reason, n in counts.items()))  # as Go sorts them
        return f"0/{self.total} nodes are available: {listed}."

    def preemptable(self) -> list[int]:
        """Nodes that failed only with a plain Unschedulable: preemption may help there. The codes
        suffice, so no reasons are worked out."""
        return [node for r in self._rejected for node in r.nodes[r.codes == UNSCHEDULABLE].tolist()]


@dataclass
class Decision:
    node: str | None
    diagnosis: Diagnosis
    scores: dict[str, dict[str, int]] = field(default_factory=dict)  # node -> plugin -> weighted score
    evaluated: int = 0


class Framework:
    """One profile's plugins, run over a NodeTable."""

    def __init__(self, name: str, filters: list[Plugin], scorers: list[tuple[Plugin, int]],
                 percentage_of_nodes_to_score: int | None = None, record: bool = False,
                 rng: random.Random | None = None):
        self.name = name
        self.filters = filters
        self.scorers = scorers
        self.percentage = percentage_of_nodes_to_score
        self.record = record
        self.rng = rng or random.Random()
        self.next_start = 0

    def schedule(self, ctx: Context) -> Decision:
        table = ctx.table
        if len(table) == 0:
            return Decision(None, Diagnosis(0))
        feasible, diagnosis = self.find_feasible(ctx)
        if len(feasible) == 0:
            return Decision(None, diagnosis)
        if len(feasible) == 1 or not self.scorers:
            return Decision(table.names[int(feasible[0])], diagnosis, evaluated=1)
        totals, per_plugin = self.score(ctx, feasible)
        best = (totals == totals.max()).nonzero()[0]
        chosen = int(feasible[best[self.rng.randrange(len(best))]])
        decision = Decision(table.names[chosen], diagnosis, evaluated=len(feasible))
        if self.record:
            decision.scores = {table.names[int(i)]: {p: int(s[k]) for p, s in per_plugin.items()}
                               for k, i in enumerate(feasible)}
        return decision

    def find_feasible(self, ctx: Context) -> tuple[np.ndarray, Diagnosis]:
        """Filter the nodes in round-robin order from where the last cycle stopped, a chunk at a
        time, until `numFeasibleNodesToFind` pass (kube-scheduler stops early too); the next cycle
        starts after the last node taken."""
        n = len(ctx.table)
        diagnosis = Diagnosis(n)
        want = num_feasible_to_find(n, self.percentage) if self.scorers else 1
        active = [p for p in self.filters if p.pre_filter(ctx)]  # PreFilter once a cycle, Skip drops the plugin
        start = self.next_start % n
        found: list[np.ndarray] = []
        count = processed = 0
        while processed < n and count < want:
            chunk = _ring(start + processed, min(max(want, MIN_CHUNK), n - processed), n)
            processed += len(chunk)
            found.append(self._filter(ctx, active, chunk, diagnosis))
            count += len(found[-1])
        feasible = np.concatenate(found) if len(found) > 1 else found[0]
        if count >= want:
            feasible = feasible[:want]
            self.next_start = (int(feasible[-1]) + 1) % n
        return feasible, diagnosis

    @staticmethod
    def _filter(ctx: Context, plugins: list[Plugin], idx: np.ndarray, diagnosis: Diagnosis) -> np.ndarray:
        """The nodes of `idx` that every filter passes; the others go to `diagnosis`."""
        alive = idx
        for plugin in plugins:
            if len(alive) == 0:
                break
            verdict = plugin.filter(ctx, alive)
            if verdict.all_passed:
                continue
            failed = verdict.codes.nonzero()[0]
            if len(failed):
                diagnosis.reject(Rejected(alive[failed], failed, verdict.codes[failed], verdict.reasons, plugin.name))
                alive = alive[verdict.codes == SUCCESS]
        return alive

    def score(self, ctx: Context, idx: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        totals = np.zeros(len(idx), dtype=np.int64)
        per_plugin: dict[str, np.ndarray] = {}
        for plugin, weight in self.scorers:
            if not plugin.pre_score(ctx, idx):
                continue
            weighted = plugin.normalize(ctx, plugin.score(ctx, idx)) * weight
            totals += weighted
            per_plugin[plugin.name] = weighted
        return totals, per_plugin


def _ring(first: int, count: int, n: int) -> np.ndarray:
    """`count` node indices from `first` on, wrapping around the `n` nodes."""
    idx = np.arange(first, first + count)
    if first + count > n:
        idx %= n
    return idx
