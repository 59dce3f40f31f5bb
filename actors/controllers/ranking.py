"""Which pods a ReplicaSet deletes first when it has too many (Kubernetes' ActivePodsWithRanks)."""
from __future__ import annotations

from api.times import seconds

PHASE_ORDER = {"Pending": 0, "Unknown": 1, "Running": 2}
DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"


def is_ready(pod: dict) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (pod.get("status") or {}).get("conditions") or [])


def _ready_since(pod: dict) -> str:
    return next((c.get("lastTransitionTime") or "" for c in (pod.get("status") or {}).get("conditions") or []
                 if c.get("type") == "Ready"), "")


def _restarts(pod: dict) -> int:
    return max((s.get("restartCount", 0) for s in (pod.get("status") or {}).get("containerStatuses") or []), default=0)


def _cost(pod: dict) -> int:
    try:
        return int((pod["metadata"].get("annotations") or {}).get(DELETION_COST, 0))
    except ValueError:
        return 0


def _negated(stamp: str) -> float:
    """Newer first: a later time sorts earlier."""
    return -seconds(stamp) if stamp else float("-inf")


def deletion_order(pod: dict, rank: int) -> tuple:
    """Sort key: unassigned, then Pending < Unknown < Running, not ready, lower deletion cost,
    more co-located siblings, more recently ready, more restarts, newer."""
    status = pod.get("status") or {}
    ready = is_ready(pod)
    return (bool(pod["spec"].get("nodeName")), PHASE_ORDER.get(status.get("phase", "Pending"), 0), ready,
            _cost(pod), -rank, _negated(_ready_since(pod)) if ready else 0.0, -_restarts(pod),
            _negated(pod["metadata"].get("creationTimestamp", "")))


def pods_to_delete(pods: list[dict], related: list[dict], count: int) -> list[dict]:
    """The first `count` pods to go; rank = active related pods on the same node."""
    per_node: dict[str, int] = {}
    for p in related:
        node = p["spec"].get("nodeName")
        if node:
            per_node[node] = per_node.get(node, 0) + 1
    ranked = sorted(pods, key=lambda p: deletion_order(p, per_node.get(p["spec"].get("nodeName") or "", 0)))
    return ranked[:count]
