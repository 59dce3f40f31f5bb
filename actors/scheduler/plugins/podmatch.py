"""Which existing pods a term or a spread constraint counts."""
from __future__ import annotations

from typing import Callable

from actors.scheduler.podinfo import PodInfo
from api.selectors import Selector, from_label_selector

HOSTNAME = "kubernetes.io/hostname"


def counts(pod: PodInfo, selector: Selector, namespace: str) -> bool:
    """Spread counting: same namespace, not terminating, labels match."""
    return pod.namespace == namespace and not pod.deleting and selector.matches(pod.labels)


def term_matcher(term: dict, owner: PodInfo) -> Callable[[PodInfo], bool]:
    """An affinity term matches a pod in its namespaces (default: the owner's) with matching labels.
    A namespaceSelector is not evaluated here (no Namespace cache yet): an empty one means all."""
    selector = from_label_selector(term.get("labelSelector"))
    namespaces = set(term.get("namespaces") or [])
    all_namespaces = term.get("namespaceSelector") == {}
    if not namespaces and term.get("namespaceSelector") is None:
        namespaces = {owner.namespace}

    def matches(pod: PodInfo) -> bool:
        return (all_namespaces or pod.namespace in namespaces) and selector.matches(pod.labels)

    return matches
