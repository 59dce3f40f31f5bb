"""Node health arithmetic: zone states, eviction rates, taints from conditions, toleration times."""
from __future__ import annotations

from dataclasses import dataclass

from api.tolerations import tolerates

UNREACHABLE = "node.kubernetes.io/unreachable"
NOT_READY = "node.kubernetes.io/not-ready"
CONDITION_TAINTS = {("Ready", "False"): NOT_READY, ("Ready", "Unknown"): UNREACHABLE,
                    ("MemoryPressure", "True"): "node.kubernetes.io/memory-pressure",
                    ("DiskPressure", "True"): "node.kubernetes.io/disk-pressure",
                    ("PIDPressure", "True"): "node.kubernetes.io/pid-pressure"}
ZONE_LABEL = "topology.kubernetes.io/zone"
REGION_LABEL = "topology.kubernetes.io/region"


def zone_of(node: dict) -> str:
    labels = node["metadata"].get("labels") or {}
    return f"{labels.get(REGION_LABEL, '')}:{labels.get(ZONE_LABEL, '')}"


def ready_status(node: dict) -> str:
    return next((c.get("status", "Unknown") for c in (node.get("status") or {}).get("conditions") or []
                 if c.get("type") == "Ready"), "Unknown")


def zone_state(readiness: list[str]) -> str:
    """ComputeZoneState: FullDisruption, PartialDisruption or Normal."""
    not_ready = sum(1 for r in readiness if r != "True")
    ready = len(readiness) - not_ready
    if ready == 0 and not_ready > 0:
        return "FullDisruption"
    if not_ready > 2 and not_ready / len(readiness) >= 0.55:
        return "PartialDisruption"
    return "Normal"


@dataclass
class Rates:
    healthy: float = 0.1
    secondary: float = 0.01
    large_cluster: int = 50

    def qps(self, state: str, zone_size: int) -> float:
        if state == "PartialDisruption":
            return self.secondary if zone_size > self.large_cluster else 0.0
        return self.healthy


def wanted_noschedule(node: dict) -> set[str]:
    """TaintNodesByCondition: NoSchedule taint keys the node's conditions call for."""
    return {key for c in (node.get("status") or {}).get("conditions") or []
            if (key := CONDITION_TAINTS.get((c.get("type"), c.get("status")))) is not None}


def eviction_delay(pod: dict, noexecute: list[dict]) -> float | None:
    """Seconds a pod may stay on a node with these NoExecute taints (0: now); None: forever."""
    tolerations = pod["spec"].get("tolerations") or []
    seconds = []
    for taint in noexecute:
        matching = [t for t in tolerations if tolerates(t, taint)]
        if not matching:
            return 0.0
        seconds += [t["tolerationSeconds"] for t in matching if t.get("tolerationSeconds") is not None]
    if not seconds:
        return None
    return max(0.0, float(min(seconds)))
