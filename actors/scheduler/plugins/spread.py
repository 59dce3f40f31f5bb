"""PodTopologySpread: DoNotSchedule constraints filter by skew, ScheduleAnyway ones (or the system
defaults for pods of a ReplicaSet) score toward an even spread."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from actors.scheduler.framework import UNRESOLVABLE, UNSCHEDULABLE, Context, Filtered, Plugin
from actors.scheduler.plugins.nodeselect import required_node_mask
from actors.scheduler.plugins.podmatch import HOSTNAME, Spread
from api.tolerations import tolerates
from api.selectors import Requirement, Selector, from_label_selector

SYSTEM_DEFAULTS = ((HOSTNAME, 3), ("topology.kubernetes.io/zone", 5))
FILTER_REASONS = {UNRESOLVABLE: "node(s) didn't match pod topology spread constraints (missing required label)",
                  UNSCHEDULABLE: "node(s) didn't match pod topology spread constraints"}


@dataclass
class Constraint:
    max_skew: int
    key: str
    selector: Selector
    min_domains: int = 1
    honor_affinity: bool = True
    honor_taints: bool = False


def _explicit(ctx: Context, mode: str) -> list[Constraint]:
    out = []
    for c in ctx.pod.spec.get("topologySpreadConstraints") or []:
        if c.get("whenUnsatisfiable") != mode:
            continue
        selector = from_label_selector(c.get("labelSelector"))
        extra = tuple(Requirement(k, "In", (ctx.pod.labels[k],)) for k in c.get("matchLabelKeys") or []
                      if k in ctx.pod.labels)
        out.append(Constraint(c["maxSkew"], c["topologyKey"], Selector(selector.requirements + extra, selector.nothing),
                              c.get("minDomains") or 1, c.get("nodeAffinityPolicy", "Honor") == "Honor",
                              c.get("nodeTaintsPolicy", "Ignore") == "Honor"))
    return out


def _defaults(ctx: Context) -> list[Constraint]:
    """The system defaults, with the selector of the pod's controlling ReplicaSet."""
    owner = next((r for r in ctx.pod.pod["metadata"].get("ownerReferences") or [] if r.get("controller")), None)
    lookup = ctx.extra.get("replicaset")
    if owner is None or owner.get("kind") != "ReplicaSet" or lookup is None:
        return []
    rs = lookup(ctx.pod.namespace, owner["name"])
    if rs is None:
        return []
    selector = from_label_selector((rs.get("spec") or {}).get("selector"))
    if selector.empty or selector.nothing:
        return []
    return [Constraint(skew, key, selector) for key, skew in SYSTEM_DEFAULTS]


class PodTopologySpread(Plugin):
    name = "PodTopologySpread"
    filters = True
    scores = True

    def __init__(self, defaulting: str = "System"):
        self.system_defaults = defaulting == "System"

    # ---- filter --------------------------------------------------------------------------------
    def pre_filter(self, ctx: Context) -> bool:
        return bool(_explicit(ctx, "DoNotSchedule"))

    def filter(self, ctx: Context, idx: np.ndarray) -> Filtered:
        codes = np.zeros(len(idx), dtype=np.int8)
        for c, per_domain, low, self_match in self._filter_state(ctx):
            node_codes = ctx.table.label_codes(c.key)[0][idx]
            missing = node_codes < 0
            skewed = ~missing & (per_domain[node_codes] + self_match - low > c.max_skew)
            undecided = codes == 0  # the first failing constraint gives the node's verdict
            codes[undecided & missing] = UNRESOLVABLE
            codes[undecided & skewed] = UNSCHEDULABLE
        if not codes.any():
            return Filtered.all_pass(len(idx))
        return Filtered(codes, lambda pos: [FILTER_REASONS[int(codes[pos])]])  # asked only for failing nodes, if at all

    def _filter_state(self, ctx: Context) -> list[tuple[Constraint, np.ndarray, int, int]]:
        """Per DoNotSchedule constraint: matching pods per domain of eligible nodes (by label code, a
        trailing 0 for nodes without the label), the global minimum and the pod's self-match. The
        framework filters a chunk of nodes at a time and preemption filters again after removing
        victims, so this is kept for as long as the table does not change."""
        table = ctx.table
        cached = ctx.scratch.get(self.name + ".filter")
        if cached is not None and cached[0] == table.version:
            return cached[1]
        constraints = _explicit(ctx, "DoNotSchedule")
        eligible = self._eligible(ctx, np.arange(len(table)), constraints)
        state = []
        for c in constraints:
            per_domain = self._domain_counts(ctx, c, eligible)
            present = table.domains_of(c.key, eligible)
            # below minDomains eligible domains the global minimum is taken as 0
            low = int(per_domain[present].min()) if present.any() and present.sum() >= c.min_domains else 0
            state.append((c, np.append(per_domain, 0), low, 1 if c.selector.matches(ctx.pod.labels) else 0))
        ctx.scratch[self.name + ".filter"] = (table.version, state)
        return state

    def _eligible(self, ctx: Context, idx: np.ndarray, constraints: list[Constraint]) -> np.ndarray:
        table = ctx.table
        mask = np.ones(len(idx), dtype=bool)
        for c in constraints:
            mask &= table.label_codes(c.key)[0][idx] >= 0
        if any(c.honor_affinity for c in constraints):
            mask &= required_node_mask(table, idx, ctx.pod.spec)
        if any(c.honor_taints for c in constraints):
            tolerated = np.array([self._tolerated(ctx, s) for s in range(len(table.taint_sets))], dtype=bool)
            mask &= tolerated[table.taint_set[idx]]
        return idx[mask]

    def _tolerated(self, ctx: Context, taint_set: int) -> bool:
        return all(t[2] not in ("NoSchedule", "NoExecute") or any(
            tolerates(x, {"key": t[0], "value": t[1], "effect": t[2]}) for x in ctx.pod.tolerations)
            for t in ctx.table.taint_sets[taint_set])

    def _domain_counts(self, ctx: Context, c: Constraint, nodes: np.ndarray) -> np.ndarray:
        """Pods `c` counts on `nodes`, per domain of `c.key` (as `NodeTable.label_codes`)."""
        matching = ctx.table.match_counts(Spread(ctx.pod.namespace, c.selector))
        return ctx.table.domain_sums(c.key, matching, nodes)

    # ---- score ---------------------------------------------------------------------------------
    def _scoring(self, ctx: Context) -> tuple[list[Constraint], bool]:
        if ctx.pod.spec.get("topologySpreadConstraints"):
            return _explicit(ctx, "ScheduleAnyway"), True
        return (_defaults(ctx) if self.system_defaults else []), False

    def pre_score(self, ctx: Context, idx: np.ndarray) -> bool:
        constraints, require_all = self._scoring(ctx)
        ctx.scratch[self.name] = (constraints, require_all)
        return bool(constraints)

    def score(self, ctx: Context, idx: np.ndarray) -> np.ndarray:
        constraints, require_all = ctx.scratch[self.name]
        table = ctx.table
        has_all = np.ones(len(idx), dtype=bool)
        for c in constraints:
            has_all &= table.label_codes(c.key)[0][idx] >= 0
        ignored = ~has_all if require_all else np.zeros(len(idx), dtype=bool)
        raw = np.zeros(len(idx), dtype=np.float64)
        for c in constraints:
            if c.key == HOSTNAME:
                size = int((~ignored).sum())
                cnt = table.match_counts(Spread(ctx.pod.namespace, c.selector))[idx]
            else:
                domains = table.domains_of(c.key, idx[~ignored])
                size = int(domains.sum())
                per_domain = self._domain_counts(ctx, c, self._counted_nodes(ctx, domains, c))
                cnt = table.by_domain(c.key, per_domain, idx)
            raw += cnt.astype(np.float64) * math.log(size + 2) + (c.max_skew - 1)
        ctx.scratch[self.name + ".ignored"] = ignored
        return np.floor(raw + 0.5).astype(np.int64)

    def _counted_nodes(self, ctx: Context, domains: np.ndarray, c: Constraint) -> np.ndarray:
        """Nodes in `domains` (of `c.key`) that pass the pod's required node affinity."""
        table = ctx.table
        idx = np.arange(len(table))
        return idx[required_node_mask(table, idx, ctx.pod.spec) & table.by_domain(c.key, domains)]

    def normalize(self, ctx: Context, scores: np.ndarray) -> np.ndarray:
        ignored = ctx.scratch.get(self.name + ".ignored", np.zeros(len(scores), dtype=bool))
        kept = scores[~ignored]
        if len(kept) == 0:
            return np.zeros(len(scores), dtype=np.int64)
        top, low = int(kept.max()), int(kept.min())
        if top == 0:
            return np.where(ignored, 0, 100).astype(np.int64)
        return np.where(ignored, 0, 100 * (top + low - scores) // top).astype(np.int64)
