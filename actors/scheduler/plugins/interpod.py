"""InterPodAffinity: required affinity and anti-affinity (the incoming pod's and the existing
pods') filter; preferred terms and existing pods' terms score by topology domain."""
from __future__ import annotations

from collections import defaultdict

import numpy as np

from actors.scheduler.framework import UNRESOLVABLE, UNSCHEDULABLE, Context, Filtered, Plugin
from actors.scheduler.podinfo import PodInfo
from actors.scheduler.plugins.podmatch import term_matcher

REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def _terms(pod: PodInfo, kind: str, when: str) -> list[dict]:
    return (pod.affinity.get(kind) or {}).get(when) or []


class InterPodAffinity(Plugin):
    name = "InterPodAffinity"
    filters = True
    scores = True

    def __init__(self, hard_pod_affinity_weight: int = 1):
        self.hard_weight = hard_pod_affinity_weight

    def _existing(self, ctx: Context):
        """(pod, node labels) for every counted pod on a known node."""
        table = ctx.table
        for i in range(len(table)):
            for pod in table.pods_on(i):
                yield pod, table.labels[i]

    # ---- filter --------------------------------------------------------------------------------
    def pre_filter(self, ctx: Context) -> bool:
        pod = ctx.pod
        if not (_terms(pod, "podAffinity", REQUIRED) or _terms(pod, "podAntiAffinity", REQUIRED)
                or any(_terms(p, "podAntiAffinity", REQUIRED) for p in ctx.table.affinity_pods.values())):
            return False
        ctx.scratch[self.name] = self._counts(ctx)
        return True

    def _counts(self, ctx: Context):
        pod = ctx.pod
        affinity = _terms(pod, "podAffinity", REQUIRED)
        anti = _terms(pod, "podAntiAffinity", REQUIRED)
        aff_match = [term_matcher(t, pod) for t in affinity]
        anti_match = [(t, term_matcher(t, pod)) for t in anti]
        aff_counts: dict[tuple[str, str], int] = defaultdict(int)
        anti_counts: dict[tuple[str, str], int] = defaultdict(int)
        existing_anti: dict[tuple[str, str], int] = defaultdict(int)
        for other, labels in self._existing(ctx):
            if affinity and all(m(other) for m in aff_match):
                for t in affinity:
                    if t["topologyKey"] in labels:
                        aff_counts[(t["topologyKey"], labels[t["topologyKey"]])] += 1
            for t, m in anti_match:
                if t["topologyKey"] in labels and m(other):
                    anti_counts[(t["topologyKey"], labels[t["topologyKey"]])] += 1
            for t in _terms(other, "podAntiAffinity", REQUIRED):
                if t["topologyKey"] in labels and term_matcher(t, other)(pod):
                    existing_anti[(t["topologyKey"], labels[t["topologyKey"]])] += 1
        self_match = all(m(pod) for m in aff_match)
        return affinity, anti, aff_counts, anti_counts, existing_anti, self_match

    def filter(self, ctx: Context, idx: np.ndarray) -> Filtered:
        affinity, anti, aff_counts, anti_counts, existing_anti, self_match = ctx.scratch[self.name]
        codes = np.zeros(len(idx), dtype=np.int8)
        reasons: dict[int, str] = {}
        for pos, i in enumerate(idx):
            labels = ctx.table.labels[int(i)]
            verdict = self._one(labels, affinity, anti, aff_counts, anti_counts, existing_anti, self_match)
            if verdict:
                codes[pos], reasons[pos] = verdict
        return Filtered(codes, lambda pos: [reasons[pos]])

    @staticmethod
    def _one(labels, affinity, anti, aff_counts, anti_counts, existing_anti, self_match):
        if affinity:
            if any(t["topologyKey"] not in labels for t in affinity):
                return UNRESOLVABLE, "node(s) didn't match pod affinity rules"
            exist = all(aff_counts.get((t["topologyKey"], labels[t["topologyKey"]]), 0) > 0 for t in affinity)
            if not exist and not (not aff_counts and self_match):
                return UNRESOLVABLE, "node(s) didn't match pod affinity rules"
        for t in anti:
            key = t["topologyKey"]
            if key in labels and anti_counts.get((key, labels[key]), 0) > 0:
                return UNSCHEDULABLE, "node(s) didn't match pod anti-affinity rules"
        for (key, value), n in existing_anti.items():
            if n > 0 and labels.get(key) == value:
                return UNSCHEDULABLE, "node(s) didn't satisfy existing pods anti-affinity rules"
        return None

    # ---- score ---------------------------------------------------------------------------------
    def pre_score(self, ctx: Context, idx: np.ndarray) -> bool:
        pod = ctx.pod
        mine = _terms(pod, "podAffinity", PREFERRED) or _terms(pod, "podAntiAffinity", PREFERRED)
        return bool(mine or ctx.table.affinity_pods)

    def score(self, ctx: Context, idx: np.ndarray) -> np.ndarray:
        buckets = self._buckets(ctx)
        ctx.scratch[self.name + ".collected"] = bool(buckets)
        out = np.zeros(len(idx), dtype=np.int64)
        for pos, i in enumerate(idx):
            labels = ctx.table.labels[int(i)]
            out[pos] = sum(v for (key, value), v in buckets.items() if labels.get(key) == value)
        return out

    def _buckets(self, ctx: Context) -> dict[tuple[str, str], int]:
        pod = ctx.pod
        buckets: dict[tuple[str, str], int] = defaultdict(int)
        mine = [(w["podAffinityTerm"], w["weight"]) for w in _terms(pod, "podAffinity", PREFERRED)] + \
            [(w["podAffinityTerm"], -w["weight"]) for w in _terms(pod, "podAntiAffinity", PREFERRED)]
        mine = [(t, w, term_matcher(t, pod)) for t, w in mine]
        existing = self._existing(ctx) if mine else (
            (p, ctx.table.labels[ctx.table.index[ctx.table.pod_node[p.uid]]])
            for p in ctx.table.affinity_pods.values() if ctx.table.pod_node.get(p.uid) in ctx.table.index)
        for other, labels in existing:
            if not labels:
                continue
            for t, w, match in mine:
                if t["topologyKey"] in labels and match(other):
                    buckets[(t["topologyKey"], labels[t["topologyKey"]])] += w
            theirs = [(t, self.hard_weight) for t in _terms(other, "podAffinity", REQUIRED)] + \
                [(w["podAffinityTerm"], w["weight"]) for w in _terms(other, "podAffinity", PREFERRED)] + \
                [(w["podAffinityTerm"], -w["weight"]) for w in _terms(other, "podAntiAffinity", PREFERRED)]
            for t, w in theirs:
                if w and t["topologyKey"] in labels and term_matcher(t, other)(pod):
                    buckets[(t["topologyKey"], labels[t["topologyKey"]])] += w
        return buckets

    def normalize(self, ctx: Context, scores: np.ndarray) -> np.ndarray:
        if not ctx.scratch.get(self.name + ".collected") or len(scores) == 0:
            return scores
        top, low = int(scores.max()), int(scores.min())
        if top == low:
            return np.zeros(len(scores), dtype=np.int64)
        return (100 * (scores - low) / (top - low)).astype(np.int64)
