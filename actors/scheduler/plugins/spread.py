"""PodTopologySpread: DoNotSchedule constraints filter by skew, ScheduleAnyway ones (or the system
defaults for pods of a ReplicaSet) score toward an even spread."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from actors.scheduler.framework import UNRESOLVABLE, UNSCHEDULABLE, Context, Filtered, Plugin
from actors.scheduler.plugins.nodeselect import required_node_mask
from actors.scheduler.plugins.podmatch import HOSTNAME, counts
from api.tolerations import tolerates
from api.selectors import Requirement, Selector, from_label_selector

SYSTEM_DEFAULTS = ((HOSTNAME, 3), ("topology.kubernetes.io/zone", 5))


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
        table, pod = ctx.table, ctx.pod
        constraints = _explicit(ctx, "DoNotSchedule")
        all_idx = np.arange(len(table))
        eligible = self._eligible(ctx, all_idx, constraints)
        codes = np.zeros(len(idx), dtype=np.int8)
        reasons: dict[int, str] = {}
        for c in constraints:
            per_value = self._domain_counts(ctx, c, eligible)
            low = min(per_value.values()) if len(per_value) >= c.min_domains and per_value else 0
            self_match = 1 if c.selector.matches(pod.labels) else 0
            column = table.label_column(c.key)
            for pos, i in enumerate(idx):
                if codes[pos]:
                    continue
                value = column[i]
                if value is None:
                    codes[pos], reasons[pos] = UNRESOLVABLE, \
                        "node(s) didn't match pod topology spread constraints (missing required label)"
                elif per_value.get(value, 0) + self_match - low > c.max_skew:
                    codes[pos], reasons[pos] = UNSCHEDULABLE, "node(s) didn't match pod topology spread constraints"
        return Filtered(codes, lambda pos: [reasons[pos]])

    def _eligible(self, ctx: Context, idx: np.ndarray, constraints: list[Constraint]) -> np.ndarray:
        table = ctx.table
        mask = np.ones(len(idx), dtype=bool)
        for c in constraints:
            mask &= np.array([v is not None for v in table.label_column(c.key)[idx]], dtype=bool)
        if any(c.honor_affinity for c in constraints):
            mask &= required_node_mask(table, idx, ctx.pod.spec)
        if any(c.honor_taints for c in constraints):
            mask &= np.array([self._tolerated(ctx, int(table.taint_set[i])) for i in idx], dtype=bool)
        return idx[mask]

    def _tolerated(self, ctx: Context, taint_set: int) -> bool:
        return all(t[2] not in ("NoSchedule", "NoExecute") or any(
            tolerates(x, {"key": t[0], "value": t[1], "effect": t[2]}) for x in ctx.pod.tolerations)
            for t in ctx.table.taint_sets[taint_set])

    def _domain_counts(self, ctx: Context, c: Constraint, nodes: np.ndarray) -> dict[str, int]:
        column = ctx.table.label_column(c.key)
        out: dict[str, int] = {}
        for i in nodes:
            n = sum(1 for p in ctx.table.pods_on(int(i)) if counts(p, c.selector, ctx.pod.namespace))
            out[column[i]] = out.get(column[i], 0) + n
        return out

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
            has_all &= np.array([v is not None for v in table.label_column(c.key)[idx]], dtype=bool)
        ignored = ~has_all if require_all else np.zeros(len(idx), dtype=bool)
        raw = np.zeros(len(idx), dtype=np.float64)
        for c in constraints:
            column = table.label_column(c.key)
            if c.key == HOSTNAME:
                size = int((~ignored).sum())
                cnt = np.array([sum(1 for p in table.pods_on(int(i)) if counts(p, c.selector, ctx.pod.namespace))
                                for i in idx], dtype=np.float64)
            else:
                values = {column[i] for i in idx[~ignored] if column[i] is not None}
                size = len(values)
                per_value = self._domain_counts(ctx, c, self._counted_nodes(ctx, values, c, require_all))
                cnt = np.array([per_value.get(column[i], 0) for i in idx], dtype=np.float64)
            raw += cnt * math.log(size + 2) + (c.max_skew - 1)
        ctx.scratch[self.name + ".ignored"] = ignored
        return np.floor(raw + 0.5).astype(np.int64)

    def _counted_nodes(self, ctx: Context, values: set, c: Constraint, require_all: bool) -> np.ndarray:
        table = ctx.table
        idx = np.arange(len(table))
        mask = required_node_mask(table, idx, ctx.pod.spec) & np.isin(table.label_column(c.key), list(values))
        return idx[mask]

    def normalize(self, ctx: Context, scores: np.ndarray) -> np.ndarray:
        ignored = ctx.scratch.get(self.name + ".ignored", np.zeros(len(scores), dtype=bool))
        kept = scores[~ignored]
        if len(kept) == 0:
            return np.zeros(len(scores), dtype=np.int64)
        top, low = int(kept.max()), int(kept.min())
        if top == 0:
            return np.where(ignored, 0, 100).astype(np.int64)
        return np.where(ignored, 0, 100 * (top + low - scores) // top).astype(np.int64)
