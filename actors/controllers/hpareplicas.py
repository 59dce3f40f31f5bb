"""The HPA's replica calculator for resource metrics, pure (replica_calculator.go: GetResourceReplicas and
GetRawResourceReplicas): pods grouped into ready, unready, missing and ignored; the usage ratio against a
utilization of requests or an average value; missing pods counted at the target (scale-down) or at zero
(scale-up), unready pods at zero when scaling up; the tolerance. Usage in milli-units (cpu millicores,
memory bytes × 1000), as PodMetric values."""
from __future__ import annotations

import math
from dataclasses import dataclass

from api import quantity
from api.times import seconds

TOLERANCE = 0.1
CPU_INITIALIZATION_S = 300.0  # --horizontal-pod-autoscaler-cpu-initialization-period
INITIAL_READINESS_DELAY_S = 30.0  # --horizontal-pod-autoscaler-initial-readiness-delay


class MetricError(Exception):
    """The replica count cannot be computed; the message is Kubernetes'."""


@dataclass(frozen=True)
class Sample:
    value: int  # milli-units
    timestamp: float
    window: float


@dataclass(frozen=True)
class Result:
    replicas: int
    utilization: int | None  # percent of requests (Utilization targets)
    average: int  # milli-units per pod


def _ready_condition(pod: dict) -> dict | None:
    return next((c for c in (pod.get("status") or {}).get("conditions") or [] if c.get("type") == "Ready"), None)


def _unready_cpu(pod: dict, sample: Sample, now: float) -> bool:
    """groupPods for cpu: within the initialization period a pod counts only when Ready and sampled a window
    after it turned Ready; after it, only a pod never Ready since its start is left out."""
    condition, started = _ready_condition(pod), (pod.get("status") or {}).get("startTime")
    if condition is None or not started:
        return True
    start, changed = seconds(started), seconds(condition.get("lastTransitionTime") or started)
    if start + CPU_INITIALIZATION_S > now:
        return condition.get("status") == "False" or sample.timestamp < changed + sample.window
    return condition.get("status") == "False" and start + INITIAL_READINESS_DELAY_S > changed


def group(pods: list[dict], samples: dict[str, Sample], resource: str, now: float):
    """(ready count, unready names, missing names): deleting and Failed pods are ignored, Pending unready."""
    ready, unready, missing = 0, set(), set()
    for pod in pods:
        name, phase = pod["metadata"]["name"], (pod.get("status") or {}).get("phase")
        if pod["metadata"].get("deletionTimestamp") or phase == "Failed":
            continue
        if phase == "Pending":
            unready.add(name)
        elif name not in samples:
            missing.add(name)
        elif resource == "cpu" and _unready_cpu(pod, samples[name], now):
            unready.add(name)
        else:
            ready += 1
    return ready, unready, missing


def requests_of(pods: list[dict], resource: str, container: str | None = None) -> dict[str, int]:
    """calculatePodRequests: each pod's request summed over its containers (and restartable init containers)."""
    found = {}
    for pod in pods:
        spec, total = pod.get("spec") or {}, 0
        sidecars = [c for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"]
        for c in [*(spec.get("containers") or []), *sidecars]:
            if container and c["name"] != container:
                continue
            request = ((c.get("resources") or {}).get("requests") or {}).get(resource)
            if request is None:
                raise MetricError(f"missing request for {resource} in container {c['name']} of Pod "
                                  f"{pod['metadata']['name']}")
            total += quantity.milli(request)
        found[pod["metadata"]["name"]] = total
    return found


def _utilization(values: dict[str, int], requests: dict[str, int], target: int) -> tuple[float, int, int]:
    """GetResourceUtilizationRatio: (ratio, utilization %, average usage)."""
    known = [name for name in values if name in requests]
    used, requested = sum(values[n] for n in known), sum(requests[n] for n in known)
    if requested == 0:
        raise MetricError("no metrics returned matched known pods")
    utilization = used * 100 // requested
    return utilization / target, utilization, used // len(known)


def _average(values: dict[str, int], target: int) -> tuple[float, int, int]:
    """GetMetricUsageRatio: (ratio, -, average usage)."""
    average = sum(values.values()) // len(values)
    return average / target, 0, average


def replicas(current: int, pods: list[dict], samples: dict[str, Sample], resource: str, now: float, *,
             utilization: int | None = None, average_value: int | None = None, container: str | None = None,
             tolerance: float | tuple[float, float] = TOLERANCE) -> Result:
    """The recommendation for one Resource metric: `utilization` (percent) or `average_value` (milli-units)."""
    down, up = tolerance if isinstance(tolerance, tuple) else (tolerance, tolerance)

    def within(ratio: float) -> bool:  # Tolerances.isWithin: (scale-down, scale-up) from the behavior
        return 1.0 - down <= ratio <= 1.0 + up
    if not pods:
        raise MetricError("no pods returned by selector while calculating replica count")
    ready, unready, missing = group(pods, samples, resource, now)
    known = {n for n in (p["metadata"]["name"] for p in pods) if n in samples} - unready
    values = {n: samples[n].value for n in known if not _ignored(pods, n)}
    if not values:
        raise MetricError("did not receive metrics for targeted pods (pods might be unready)")
    requests = requests_of(pods, resource, container) if utilization is not None else {}
    ratio_of = (lambda v: _utilization(v, requests, utilization)) if utilization is not None else \
        (lambda v: _average(v, average_value))
    ratio, percent, average = ratio_of(values)
    shown = percent if utilization is not None else None
    up_with_unready = bool(unready) and ratio > 1.0
    if not up_with_unready and not missing:
        keep = within(ratio)
        return Result(current if keep else math.ceil(ratio * ready), shown, average)
    for name in missing:
        if ratio < 1.0:
            values[name] = (requests[name] * max(100, utilization) // 100 if utilization is not None
                            else average_value)
        elif ratio > 1.0:
            values[name] = 0
    if up_with_unready:
        values.update({name: 0 for name in unready})
    new_ratio = ratio_of(values)[0]
    if within(new_ratio) or (ratio < 1.0 < new_ratio) or (ratio > 1.0 > new_ratio):
        return Result(current, shown, average)
    proposed = math.ceil(new_ratio * len(values))
    if (new_ratio < 1.0 and proposed > current) or (new_ratio > 1.0 and proposed < current):
        return Result(current, shown, average)
    return Result(proposed, shown, average)


def _ignored(pods: list[dict], name: str) -> bool:
    pod = next(p for p in pods if p["metadata"]["name"] == name)
    return bool(pod["metadata"].get("deletionTimestamp")) or (pod.get("status") or {}).get("phase") == "Failed"
