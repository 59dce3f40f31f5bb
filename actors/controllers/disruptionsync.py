"""The disruption controller's decisions (pkg/controller/disruption/disruption.go), pure: a budget's
expected and desired healthy pods, its current healthy pods, the disrupted pods still awaited, the
disruptions it allows and its `DisruptionAllowed` condition. The actor is `disruption.py`."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from api import pdb as pdbs
from api.times import rfc3339, seconds

DELETION_TIMEOUT = 120.0  # seconds an evicted pod has to go before the budget counts it again
# a pod's controllerRef -> (uid, scale) of the workload whose scale counts, or None when not found
ScaleOf = Callable[[str, dict], "tuple[str, int] | None"]


class SyncFailed(Exception):
    """The budget cannot be computed (a pod's controller is not found): status 0, condition SyncFailed."""


@dataclass
class Outcome:
    status: dict
    unmanaged: list[str] = field(default_factory=list)  # pods without a controller (scale-based forms)
    not_deleted: list[str] = field(default_factory=list)  # evicted over DELETION_TIMEOUT ago, still there
    recheck_at: float | None = None  # when an awaited disruption times out


def expected_scale(namespace: str, pods: list[dict], scale_of: ScaleOf) -> tuple[int, list[str]]:
    """getExpectedScale: the sum of the scales of the pods' distinct controllers."""
    scales: dict[str, int] = {}
    unmanaged = []
    for pod in pods:
        ref = next((r for r in pod["metadata"].get("ownerReferences") or [] if r.get("controller")), None)
        if ref is None:
            unmanaged.append(pod["metadata"]["name"])
            continue
        found = scale_of(namespace, ref)
        if found is None:
            raise SyncFailed(f'found no controllers for pod "{pod["metadata"]["name"]}"')
        scales[found[0]] = found[1]
    return sum(scales.values()), unmanaged


def expected_and_desired(pdb: dict, pods: list[dict], scale_of: ScaleOf) -> tuple[int, int, list[str]]:
    """getExpectedPodCount: maxUnavailable and a percent minAvailable count the controllers' scale; an
    integer minAvailable counts the matching pods."""
    spec = pdb.get("spec") or {}
    namespace = pdb["metadata"].get("namespace", "")
    if spec.get("maxUnavailable") is not None:
        expected, unmanaged = expected_scale(namespace, pods, scale_of)
        return expected, max(0, expected - pdbs.scaled(spec["maxUnavailable"], expected)), unmanaged
    minimum = spec.get("minAvailable")
    if isinstance(minimum, int):
        return len(pods), minimum, []
    if minimum is not None:
        expected, unmanaged = expected_scale(namespace, pods, scale_of)
        return expected, pdbs.scaled(minimum, expected), unmanaged
    return 0, 0, []


def awaited(pdb: dict, pods: list[dict], now: float) -> tuple[dict[str, str], list[str], float | None]:
    """buildDisruptedPodMap: evictions still expected to finish (younger than DELETION_TIMEOUT, the pod
    there and not deleting), the ones that timed out, and when the next one will."""
    recorded = (pdb.get("status") or {}).get("disruptedPods") or {}
    kept, late, recheck = {}, [], None
    for pod in pods:
        name = pod["metadata"]["name"]
        if pod["metadata"].get("deletionTimestamp") or name not in recorded:
            continue
        due = seconds(recorded[name]) + DELETION_TIMEOUT
        if due < now:
            late.append(name)
        else:
            kept[name] = recorded[name]
            recheck = due if recheck is None else min(recheck, due)
    return kept, late, recheck


def healthy(pods: list[dict], disrupted: dict[str, str], now: float) -> int:
    """countHealthyPods: ready, not deleting, not awaiting an eviction."""
    return sum(1 for pod in pods if pdbs.is_healthy(pod) and not (
        pod["metadata"]["name"] in disrupted and seconds(disrupted[pod["metadata"]["name"]]) + DELETION_TIMEOUT > now))


def condition(pdb: dict, status: str, reason: str, message: str, now: float) -> list[dict]:
    """apimeta.SetStatusCondition of DisruptionAllowed: the transition time moves only with the status."""
    old = next((c for c in (pdb.get("status") or {}).get("conditions") or []
                if c.get("type") == pdbs.DISRUPTION_ALLOWED), None)
    since = old["lastTransitionTime"] if old and old.get("status") == status else rfc3339(now)
    new = {"type": pdbs.DISRUPTION_ALLOWED, "status": status, "reason": reason, "message": message,
           "observedGeneration": pdb["metadata"].get("generation", 1), "lastTransitionTime": since}
    others = [c for c in (pdb.get("status") or {}).get("conditions") or [] if c.get("type") != pdbs.DISRUPTION_ALLOWED]
    return [*others, new]


def sync(pdb: dict, pods: list[dict], scale_of: ScaleOf, now: float) -> Outcome:
    """The budget's next status from the pods it selects."""
    generation = pdb["metadata"].get("generation", 1)
    try:
        expected, desired, unmanaged = expected_and_desired(pdb, pods, scale_of)
    except SyncFailed as exc:
        status = {**(pdb.get("status") or {}), "disruptionsAllowed": 0, "observedGeneration": generation,
                  "conditions": condition(pdb, "False", pdbs.SYNC_FAILED, str(exc), now)}
        return Outcome(status)
    disrupted, late, recheck = awaited(pdb, pods, now)
    current = healthy(pods, disrupted, now)
    allowed = current - desired if expected > 0 and current > desired else 0
    reason = (("True", pdbs.SUFFICIENT) if allowed > 0 else ("False", pdbs.INSUFFICIENT))
    status = {"observedGeneration": generation, "disruptionsAllowed": allowed, "currentHealthy": current,
              "desiredHealthy": desired, "expectedPods": expected,
              **({"disruptedPods": disrupted} if disrupted else {}),
              "conditions": condition(pdb, *reason, "", now)}
    return Outcome(status, unmanaged, late, recheck)
