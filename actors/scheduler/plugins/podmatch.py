"""Which existing pods a term or a spread constraint counts."""
from __future__ import annotations

from dataclasses import dataclass

from actors.scheduler.podinfo import PodInfo
from api.selectors import NOTHING, Selector, from_label_selector

HOSTNAME = "kubernetes.io/hostname"
REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def counts(pod: PodInfo, selector: Selector, namespace: str) -> bool:
    """Spread counting: same namespace, not terminating, labels match."""
    return pod.namespace == namespace and not pod.deleting and selector.matches(pod.labels)


@dataclass(frozen=True)
class Spread:
    """`counts` as a value: equal constraints share the NodeTable's per-node counts."""

    namespace: str
    selector: Selector

    def __call__(self, pod: PodInfo) -> bool:
        return counts(pod, self.selector, self.namespace)


@dataclass(frozen=True)
class TermMatch:
    """The pods an affinity term selects: in `namespaces` (None: every namespace), labels matching.
    A value, so equal terms of different pods share the NodeTable's per-node counts."""

    namespaces: frozenset[str] | None
    selector: Selector

    def __call__(self, pod: PodInfo) -> bool:
        return (self.namespaces is None or pod.namespace in self.namespaces) and self.selector.matches(pod.labels)


@dataclass(frozen=True)
class AllOf:
    """Pods every one of `matches` selects (a pod's required affinity terms must all match one pod)."""

    matches: tuple[TermMatch, ...]

    def __call__(self, pod: PodInfo) -> bool:
        return all(m(pod) for m in self.matches)


def term_match(term: dict, owner: PodInfo) -> TermMatch:
    """An affinity term matches a pod in its namespaces (default: the owner's) with matching labels.
    A namespaceSelector is not evaluated here (no Namespace cache yet): an empty one means all. A
    selector that does not parse selects nothing: existing pods' terms are read as the pods are
    counted (NodeTable.add_pod), which must not fail halfway over one pod."""
    try:
        selector = from_label_selector(term.get("labelSelector"))
    except ValueError:
        selector = NOTHING
    if term.get("namespaceSelector") == {}:
        return TermMatch(None, selector)
    namespaces = set(term.get("namespaces") or [])
    if not namespaces and term.get("namespaceSelector") is None:
        namespaces = {owner.namespace}
    return TermMatch(frozenset(namespaces), selector)


def terms(pod: PodInfo, kind: str, when: str) -> list[dict]:
    return (pod.affinity.get(kind) or {}).get(when) or []


# Kinds of an existing pod's terms, as InterPodAffinity uses them: required anti-affinity filters,
# the rest score (required affinity with the profile's hardPodAffinityWeight).
ANTI, HARD, SOFT = "anti", "hard", "soft"


def term_groups(pod: PodInfo) -> list[tuple[str, str, TermMatch, int]]:
    """The pod's inter-pod terms as (kind, topologyKey, whom it selects, weight), one per term.
    Pods of one workload have equal tuples, which the NodeTable counts per node."""
    cached = pod.extra.get("term_groups")
    if cached is None:
        def group(kind: str, term: dict, weight: int = 0) -> tuple[str, str, TermMatch, int]:
            return kind, term.get("topologyKey", ""), term_match(term, pod), weight

        cached = [group(ANTI, t) for t in terms(pod, "podAntiAffinity", REQUIRED)] + \
            [group(HARD, t) for t in terms(pod, "podAffinity", REQUIRED)] + \
            [group(SOFT, w["podAffinityTerm"], w["weight"]) for w in terms(pod, "podAffinity", PREFERRED)] + \
            [group(SOFT, w["podAffinityTerm"], -w["weight"]) for w in terms(pod, "podAntiAffinity", PREFERRED)]
        pod.extra["term_groups"] = cached
    return cached
