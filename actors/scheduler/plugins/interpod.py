"""InterPodAffinity: required affinity and anti-affinity (the incoming pod's and the existing
pods') filter; preferred terms and existing pods' terms score by topology domain.

Like kube-scheduler's PreFilter/PreScore state, counts are kept per topology domain: for each
topology key, an array over the key's values (indexed as `NodeTable.label_codes`). They are sums of
the NodeTable's per-node columns, so no cycle visits the pods: the incoming pod's terms use
`match_counts`, the existing pods' terms `term_counts` (pods with equal terms share a column)."""
from __future__ import annotations

import numpy as np

from actors.scheduler.framework import UNRESOLVABLE, UNSCHEDULABLE, Context, Filtered, Plugin
from actors.scheduler.nodes import NodeTable
from actors.scheduler.plugins.podmatch import ANTI, HARD, SOFT, AllOf, TermMatch, term_groups
from actors.scheduler.podinfo import PodInfo

# A failing node's reason, by number; the first applicable one is given, as upstream checks them in order.
FAILURES = {1: (UNRESOLVABLE, "node(s) didn't match pod affinity rules"),
            2: (UNSCHEDULABLE, "node(s) didn't match pod anti-affinity rules"),
            3: (UNSCHEDULABLE, "node(s) didn't satisfy existing pods anti-affinity rules")}

PerDomain = dict[str, np.ndarray]  # topology key -> count (or weight) per value of the key


def _add(into: PerDomain, key: str, sums: np.ndarray) -> None:
    into[key] = into[key] + sums if key in into else sums


def _terms(pod: PodInfo, kind: str) -> list[tuple[str, TermMatch, int]]:
    """The pod's terms of `kind` (podmatch.term_groups) as (topologyKey, whom it selects, weight)."""
    return [(key, match, weight) for k, key, match, weight in term_groups(pod) if k == kind]


def _at(table: NodeTable, per_domain: PerDomain, key: str, idx: np.ndarray) -> np.ndarray:
    """The count of each node's domain of `key` (0 without the label or a count)."""
    counts = per_domain.get(key)
    if counts is None:
        return np.zeros(len(idx), dtype=np.int64)
    return table.by_domain(key, counts, idx)


class InterPodAffinity(Plugin):
    name = "InterPodAffinity"
    filters = True
    scores = True

    def __init__(self, hard_pod_affinity_weight: int = 1):
        self.hard_weight = hard_pod_affinity_weight

    # ---- filter --------------------------------------------------------------------------------
    def pre_filter(self, ctx: Context) -> bool:
        """Skip unless some required term applies: the pod's, or an existing pod's anti-affinity (a
        pod waiting for a gone node counts nowhere; with nothing counted every node would pass)."""
        pod = ctx.pod
        if not (_terms(pod, HARD) or _terms(pod, ANTI)
                or any(kind == ANTI for kind, *_rest in ctx.table.term_counts)):
            return False
        ctx.scratch[self.name] = self._counts(ctx)
        return True

    def _counts(self, ctx: Context):
        pod, table = ctx.pod, ctx.table
        affinity, anti = _terms(pod, HARD), _terms(pod, ANTI)
        aff_counts: PerDomain = {}
        if affinity:  # an existing pod counts for the affinity terms if it matches all of them
            together = table.match_counts(AllOf(tuple(match for _key, match, _w in affinity)))
            for key, _match, _w in affinity:
                _add(aff_counts, key, table.domain_sums(key, together))
        anti_counts: PerDomain = {}
        for key, match, _w in anti:
            _add(anti_counts, key, table.domain_sums(key, table.match_counts(match)))
        existing_anti: PerDomain = {}  # existing pods whose required anti-affinity selects this pod
        for (kind, key, match, _weight), col in table.term_counts.items():
            if kind == ANTI and match(pod):
                _add(existing_anti, key, table.domain_sums(key, col[:len(table)]))
        self_match = all(match(pod) for _key, match, _w in affinity)
        return affinity, anti, aff_counts, anti_counts, existing_anti, self_match

    def filter(self, ctx: Context, idx: np.ndarray) -> Filtered:
        affinity, anti, aff_counts, anti_counts, existing_anti, self_match = ctx.scratch[self.name]
        table = ctx.table
        why = np.zeros(len(idx), dtype=np.int8)  # a key of FAILURES, 0 while the node passes

        def fail(mask: np.ndarray, reason: int) -> None:
            why[(why == 0) & mask] = reason

        if affinity:
            missing = np.zeros(len(idx), dtype=bool)
            exist = np.ones(len(idx), dtype=bool)
            for key, _match, _w in affinity:
                missing |= table.label_codes(key)[0][idx] < 0
                exist &= _at(table, aff_counts, key, idx) > 0
            # no pod matches anywhere, yet the pod matches its own terms: the first of a group may go anywhere
            anywhere = self_match and not any(c.any() for c in aff_counts.values())
            fail(missing | (~exist & (not anywhere)), 1)
        for key, _match, _w in anti:
            fail(_at(table, anti_counts, key, idx) > 0, 2)
        for key in existing_anti:
            fail(_at(table, existing_anti, key, idx) > 0, 3)
        if not why.any():
            return Filtered.all_pass(len(idx))
        codes = np.array([0] + [code for code, _reason in FAILURES.values()], dtype=np.int8)[why]
        return Filtered(codes, lambda pos: [FAILURES[int(why[pos])][1]])  # asked only for failing nodes, if at all

    # ---- score ---------------------------------------------------------------------------------
    def pre_score(self, ctx: Context, idx: np.ndarray) -> bool:
        return bool(_terms(ctx.pod, SOFT) or ctx.table.affinity_pods)

    def score(self, ctx: Context, idx: np.ndarray) -> np.ndarray:
        buckets, collected = self._buckets(ctx)
        ctx.scratch[self.name + ".collected"] = collected
        out = np.zeros(len(idx), dtype=np.int64)
        for key in buckets:
            out += _at(ctx.table, buckets, key, idx)
        return out

    def _buckets(self, ctx: Context) -> tuple[PerDomain, bool]:
        """Weights per domain, and whether any pod contributed (even a weight of 0)."""
        pod, table = ctx.pod, ctx.table
        buckets: PerDomain = {}
        collected = False
        for key, match, w in _terms(pod, SOFT):  # its preferred terms, anti-affinity's weights negative
            sums = table.domain_sums(key, table.match_counts(match))
            _add(buckets, key, w * sums)
            collected = collected or bool(sums.any())
        for (kind, key, match, weight), col in table.term_counts.items():  # the existing pods' terms
            w = self.hard_weight if kind == HARD else weight if kind == SOFT else 0
            if w and match(pod):
                sums = table.domain_sums(key, col[:len(table)])
                _add(buckets, key, w * sums)
                collected = collected or bool(sums.any())
        return buckets, collected

    def normalize(self, ctx: Context, scores: np.ndarray) -> np.ndarray:
        if not ctx.scratch.get(self.name + ".collected") or len(scores) == 0:
            return scores
        top, low = int(scores.max()), int(scores.min())
        if top == low:
            return np.zeros(len(scores), dtype=np.int64)
        return (100 * (scores - low) / (top - low)).astype(np.int64)
