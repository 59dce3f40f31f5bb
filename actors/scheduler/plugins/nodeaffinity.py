"""NodeAffinity: nodeSelector and required terms filter; preferred terms score. The profile's
`addedAffinity` (NodeAffinityArgs) is ANDed into the filter and its preferred terms add to the score."""
from __future__ import annotations

import numpy as np

from actors.scheduler.framework import SUCCESS, UNRESOLVABLE, Context, Filtered, Plugin, default_normalize
from actors.scheduler.plugins.nodeselect import required_node_mask, term_mask, term_parses, terms_mask

ERR_REASON_POD = "node(s) didn't match Pod's node affinity/selector"
ERR_REASON_ENFORCED = "node(s) didn't match scheduler-enforced node affinity"
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def _node_affinity(ctx: Context) -> dict:
    return ctx.pod.affinity.get("nodeAffinity") or {}


def _scoring(terms: list[dict]) -> list[dict]:
    """Preferred terms that count: weight 0 and empty preferences are skipped, as upstream."""
    def empty(term: dict) -> bool:
        return not term.get("matchExpressions") and not term.get("matchFields")

    return [t for t in terms if t.get("weight") and not empty(t.get("preference") or {})]


def parse_args(args: dict) -> tuple[dict | None, list[dict]]:
    """NodeAffinityArgs into (the added required NodeSelector, the added preferred terms). A field it
    does not know or a term that does not parse is a ValueError: kube-scheduler refuses to start."""
    added = args.get("addedAffinity") or {}
    if not isinstance(added, dict):
        raise ValueError("NodeAffinity args: addedAffinity must be a NodeAffinity")
    unknown = sorted(set(args) - {"apiVersion", "kind", "addedAffinity"}) + \
        [f"addedAffinity.{k}" for k in sorted(set(added) - {REQUIRED, PREFERRED})]
    if unknown:
        raise ValueError(f"NodeAffinity args: unknown field(s) {unknown}")
    required, preferred = added.get(REQUIRED), _scoring(added.get(PREFERRED) or [])
    selector_terms = (required or {}).get("nodeSelectorTerms") or []
    terms = [(f"{REQUIRED}.nodeSelectorTerms[{i}]", t) for i, t in enumerate(selector_terms)]
    terms += [(f"{PREFERRED}[{i}]", t["preference"]) for i, t in enumerate(added.get(PREFERRED) or []) if _scoring([t])]
    bad = [where for where, term in terms if not term_parses(term)]
    if bad:
        raise ValueError(f"NodeAffinity args: addedAffinity terms do not parse: {', '.join(bad)}")
    return required, preferred


class NodeAffinity(Plugin):
    name = "NodeAffinity"
    filters = True
    scores = True

    def __init__(self, args: dict | None = None):
        self.added_required, self.added_preferred = parse_args(args or {})

    def pre_filter(self, ctx: Context) -> bool:
        return bool(ctx.pod.spec.get("nodeSelector")) or REQUIRED in _node_affinity(ctx) or \
            self.added_required is not None

    def filter(self, ctx: Context, idx: np.ndarray) -> Filtered:
        """The added affinity first (its own reason), then the pod's nodeSelector and required terms."""
        enforced = np.zeros(len(idx), dtype=bool)
        if self.added_required is not None:
            enforced = ~terms_mask(ctx.table, idx, self.added_required.get("nodeSelectorTerms") or [])
        failed = enforced | ~required_node_mask(ctx.table, idx, ctx.pod.spec)
        return Filtered(np.where(failed, UNRESOLVABLE, SUCCESS).astype(np.int8),
                        lambda pos: [ERR_REASON_ENFORCED if enforced[pos] else ERR_REASON_POD])

    def _preferred(self, ctx: Context) -> list[dict]:
        return self.added_preferred + _scoring(_node_affinity(ctx).get(PREFERRED) or [])

    def pre_score(self, ctx: Context, idx: np.ndarray) -> bool:
        return bool(self._preferred(ctx))

    def score(self, ctx: Context, idx: np.ndarray) -> np.ndarray:
        total = np.zeros(len(idx), dtype=np.int64)
        for term in self._preferred(ctx):
            mask = term_mask(ctx.table, idx, term["preference"])
            if mask is not None:
                total += np.where(mask, term["weight"], 0)
        return total

    def normalize(self, ctx: Context, scores: np.ndarray) -> np.ndarray:
        return default_normalize(scores, reverse=False)
