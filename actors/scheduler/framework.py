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
    """A filter's verdict for nodes `idx`: a code per node and the reasons of the failing ones."""

    codes: np.ndarray
    reasons: Callable[[int], list[str]]  # position in idx -> reasons

    @classmethod
    def single(cls, failed: np.ndarray, reason: str, code: int = UNRESOLVABLE) -> "Filtered":
        return cls(np.where(failed, code, SUCCESS).astype(np.int8), lambda _pos: [reason])

    @classmethod
    def all_pass(cls, count: int) -> "Filtered":
        return cls(np.zeros(count, dtype=np.int8), lambda _pos: [])


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
class Diagnosis:
    """Why nodes failed: per node its code and reasons, and which plugin said so."""

    total: int
    failures: dict[int, tuple[int, list[str], str]] = field(default_factory=dict)

    def message(self) -> str:
        """Kubernetes' FitError text: `0/3 nodes are available: 1 node(s) had ..., 2 Insufficient cpu.`"""
        if self.total == 0:
            return "no nodes available to schedule pods"
        counts = Counter(reason for _code, reasons, _p in self.failures.values() for reason in reasons)
        listed = ", ".join(sorted(f"{n} {reason}" for reason, n in counts.items()))  # as Go sorts them
        return f"0/{self.total} nodes are available: {listed}."

    def preemptable(self) -> list[int]:
        """Nodes that failed only with a plain Unschedulable: preemption may help there."""
        return [i for i, (code, _r, _p) in self.failures.items() if code == UNSCHEDULABLE]


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
        best = np.flatnonzero(totals == totals.max())
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
        order = (np.arange(n) + self.next_start % n) % n
        found: list[np.ndarray] = []
        count = processed = 0
        while processed < n and count < want:
            chunk = order[processed:processed + max(want, MIN_CHUNK)]
            processed += len(chunk)
            found.append(self._filter(ctx, chunk, diagnosis))
            count += len(found[-1])
        feasible = np.concatenate(found) if len(found) > 1 else found[0]
        if count >= want:
            feasible = feasible[:want]
            self.next_start = (int(feasible[-1]) + 1) % n
        return feasible, diagnosis

    def _filter(self, ctx: Context, idx: np.ndarray, diagnosis: Diagnosis) -> np.ndarray:
        """The nodes of `idx` that every filter passes; the others' reasons go to `diagnosis`."""
        alive = idx
        for plugin in self.filters:
            if len(alive) == 0:
                break
            if not plugin.pre_filter(ctx):
                continue
            verdict = plugin.filter(ctx, alive)
            failed = np.flatnonzero(verdict.codes)
            for pos in failed:
                diagnosis.failures[int(alive[pos])] = (int(verdict.codes[pos]), verdict.reasons(int(pos)), plugin.name)
            if len(failed):
                alive = alive[verdict.codes == SUCCESS]
        return alive

    def score(self, ctx: Context, idx: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        totals = np.zeros(len(idx), dtype=np.int64)
        per_plugin: dict[str, np.ndarray] = {}
        for plugin, weight in self.scorers:
            if not plugin.pre_score(ctx, idx):
                continue
            scores = plugin.normalize(ctx, plugin.score(ctx, idx))
            totals += weight * scores
            per_plugin[plugin.name] = weight * scores
        return totals, per_plugin
