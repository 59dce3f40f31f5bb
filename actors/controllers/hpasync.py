"""The HPA controller's decisions, pure (horizontal.go: reconcileAutoscaler, computeReplicasForMetrics,
normalizeDesiredReplicas[WithBehaviors], the stabilization windows and the scaling policies): an HPA, its
target's scale, the pods and their samples, the time and the controller's memory of recent recommendations
and rescales in; a Decision (the new size, the status, the events) out. hpareplicas.py computes one
metric's recommendation; hpa.py carries the Decision out."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from actors.controllers import hpareplicas
from actors.controllers.hpareplicas import MetricError, Sample
from api import autoscaling, quantity
from api.autoscaling import ABLE_TO_SCALE, SCALING_ACTIVE, SCALING_LIMITED
from api.times import rfc3339

WITHIN = ("DesiredWithinRange", "the desired count is within the acceptable range")
UP_LIMIT = ("ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate")
DOWN_LIMIT = ("ScaleDownLimit", "the desired replica count is decreasing faster than the maximum scale rate")
TOO_MANY = ("TooManyReplicas", "the desired replica count is more than the maximum replica count")
TOO_FEW = ("TooFewReplicas", "the desired replica count is less than the minimum replica count")
READY = ("ReadyForNewScale", "recommended size matches current size")
DOWN_STABILIZED = ("ScaleDownStabilized",
                   "recent recommendations were higher than current one, applying the highest recent recommendation")
UP_STABILIZED = ("ScaleUpStabilized",
                 "recent recommendations were lower than current one, applying the lowest recent recommendation")


@dataclass
class Memory:
    """What kube-controller-manager keeps per HPA between syncs: recommendations and rescales, timed."""
    recommendations: list[tuple[float, int]] = field(default_factory=list)
    ups: list[tuple[float, int]] = field(default_factory=list)
    downs: list[tuple[float, int]] = field(default_factory=list)


@dataclass
class Decision:
    desired: int
    rescale: bool
    status: dict
    events: list[tuple[str, str, str]] = field(default_factory=list)  # (type, reason, message)


def condition(status: dict, type_: str, state: str, reason: str, message: str, now: float) -> None:
    """setCondition: the transition time moves only when the status does."""
    conditions = status.setdefault("conditions", [])
    old = next((c for c in conditions if c["type"] == type_), None)
    stamp = old["lastTransitionTime"] if old and old.get("status") == state else rfc3339(now)
    new = {"type": type_, "status": state, "lastTransitionTime": stamp, "reason": reason, "message": message}
    if old:
        conditions[conditions.index(old)] = new
    else:
        conditions.append(new)


def _metric(hpa: dict, spec: dict, current: int, pods: list[dict], samples: dict[str, dict[str, Sample]] | str,
            now: float, tolerance: tuple[float, float]) -> tuple[int, str, dict]:
    """One Resource/ContainerResource metric: (recommendation, its name, its status)."""
    kind = spec.get("type")
    if kind not in ("Resource", "ContainerResource"):
        raise MetricError(f"kubus serves the resource metrics API only, not {kind} metrics")
    source = spec["resource" if kind == "Resource" else "containerResource"]
    target, name = source.get("target") or {}, source["name"]
    if isinstance(samples, str):  # the metrics API's refusal
        raise MetricError(f"unable to get metrics for resource {name}: unable to fetch metrics from resource "
                          f"metrics API: {samples}")
    utilization = target.get("averageUtilization")
    value = None if utilization is not None else quantity.milli(target.get("averageValue"))
    key = f"{source['container']}/{name}" if kind == "ContainerResource" else name
    of_resource = {pod: by[key] for pod, by in samples.items() if key in by}
    result = hpareplicas.replicas(current, pods, of_resource, name, now, utilization=utilization, average_value=value,
                                  container=source.get("container"), tolerance=tolerance)
    shown = {"averageValue": _milli(result.average, name)}
    if utilization is not None:
        shown["averageUtilization"] = result.utilization
    status = {"name": name, "current": shown, **({"container": source["container"]} if "container" in source else {})}
    label = f"{name} resource utilization (percentage of request)" if utilization is not None else f"{name} resource"
    if kind == "ContainerResource":
        label = f"{name} container resource" + (" utilization (percentage of request)" if utilization else "")
    return result.replicas, label, {"type": kind, ("resource" if kind == "Resource" else "containerResource"): status}


def _milli(value: int, resource: str) -> str:
    return f"{value}m" if value % 1000 or resource == "cpu" else str(value // 1000)


def compute(hpa: dict, current: int, pods: list[dict], samples: dict[str, dict[str, Sample]] | str, now: float,
            status: dict,
            tolerance: tuple[float, float]) -> tuple[int, str, list[dict], list[tuple[str, str, str]]]:
    """computeReplicasForMetrics: the largest recommendation; -1 when every metric failed."""
    best, label, statuses, events, failures = -1, "", [], [], 0
    for spec in hpa["spec"].get("metrics") or []:
        try:
            proposal, name, shown = _metric(hpa, spec, current, pods, samples, now, tolerance)
        except MetricError as exc:
            failures += 1
            reason = f"FailedGet{spec.get('type', '')}Metric"
            message = f"the HPA was unable to compute the replica count: {exc}"
            condition(status, SCALING_ACTIVE, "False", reason, message, now)
            events.append(("Warning", reason, message))
            statuses.append({"type": ""})
            continue
        statuses.append(shown)
        if proposal > best:
            best, label = proposal, name
    if failures and best == -1:
        return -1, "", statuses, events
    condition(status, SCALING_ACTIVE, "True", "ValidMetricFound",
              f"the HPA was able to successfully calculate a replica count from {label}", now)
    return best, label, statuses, events


def _changes(events: list[tuple[float, int]], period: int, now: float) -> int:
    return sum(change for at, change in events if at > now - period)


def _limit(rules: dict, current: int, memory: Memory, now: float, up: bool) -> int:
    """calculateScaleUpLimitWithScalingRules / calculateScaleDownLimitWithBehaviors."""
    select = rules.get("selectPolicy") or "Max"
    if select == "Disabled":
        return current
    proposals = []
    for policy in rules.get("policies") or []:
        period = policy["periodSeconds"]
        start = current - _changes(memory.ups, period, now) + _changes(memory.downs, period, now)
        if policy["type"] == "Pods":
            proposals.append(start + policy["value"] if up else start - policy["value"])
        elif up:
            proposals.append(math.ceil(start * (1 + policy["value"] / 100)))
        else:
            proposals.append(int(start * (1 - policy["value"] / 100)))
    wants_most = (select == "Max") == up
    return max(proposals) if wants_most else min(proposals)


def _stabilize_plain(memory: Memory, desired: int, now: float, window: float) -> int:
    """stabilizeRecommendation: the highest recommendation of the down window."""
    best = max([desired, *(n for at, n in memory.recommendations if at >= now - window)])
    _record(memory, desired, now, window)
    return best


def _record(memory: Memory, desired: int, now: float, keep: float) -> None:
    memory.recommendations = [(at, n) for at, n in memory.recommendations if at >= now - keep]
    memory.recommendations.append((now, desired))


def _bounds(current: int, desired: int, low: int, high: int) -> tuple[int, tuple[str, str]]:
    """convertDesiredReplicasWithRules: [min, min(max, max(2·current, 4))]."""
    up_limit = max(2 * current, 4)
    ceiling, why_high = (up_limit, UP_LIMIT) if high > up_limit else (high, TOO_MANY)
    floor = max(low, 1)
    if desired < floor:
        return floor, TOO_FEW
    if desired > ceiling:
        return ceiling, why_high
    return desired, WITHIN


def _with_behavior(hpa: dict, memory: Memory, current: int, desired: int, now: float,
                   down_window: int) -> tuple[int, int, tuple[str, str], tuple[str, str]]:
    """normalizeDesiredReplicasWithBehaviors: (stabilized, final, why stabilized, why limited)."""
    spec = hpa["spec"]
    up_rules = spec["behavior"].get("scaleUp") or autoscaling.scale_up_rules()
    down_rules = dict(spec["behavior"].get("scaleDown") or autoscaling.scale_down_rules())
    if down_rules.get("stabilizationWindowSeconds") is None:
        down_rules["stabilizationWindowSeconds"] = down_window
    up_window, window = up_rules.get("stabilizationWindowSeconds") or 0, down_rules["stabilizationWindowSeconds"]
    going_up = desired >= current
    cutoff = now - (up_window if going_up else window)
    recent = [n for at, n in memory.recommendations if at > cutoff]
    stabilized = (min if going_up else max)([desired, *recent])
    _record(memory, desired, now, max(up_window, window))
    why = READY if stabilized == desired else (UP_STABILIZED if going_up else DOWN_STABILIZED)
    low, high = spec.get("minReplicas") or 1, spec["maxReplicas"]
    final, limited = stabilized, WITHIN
    if stabilized > current:
        limit = max(_limit(up_rules, current, memory, now, True), current)
        ceiling, why_high = (limit, UP_LIMIT) if high > limit else (high, TOO_MANY)
        final, limited = (ceiling, why_high) if stabilized > ceiling else (stabilized, WITHIN)
    elif stabilized < current:
        limit = min(_limit(down_rules, current, memory, now, False), current)
        floor, why_low = (limit, DOWN_LIMIT) if low < limit else (low, TOO_FEW)
        final, limited = (floor, why_low) if stabilized < floor else (stabilized, WITHIN)
    return stabilized, final, why, limited


def decide(hpa: dict, scale: dict, pods: list[dict], samples: dict[str, dict[str, Sample]] | str, now: float,
           memory: Memory, *,
           down_window: int = autoscaling.SCALE_DOWN_WINDOW_S, tolerance: float = hpareplicas.TOLERANCE) -> Decision:
    """reconcileAutoscaler after the scale was read (`scale`: an autoscaling/v1 Scale)."""
    spec, status = hpa["spec"], _status(hpa, scale)
    current, low, high = status["currentReplicas"], spec.get("minReplicas") or 1, spec["maxReplicas"]
    condition(status, ABLE_TO_SCALE, "True", "SucceededGetScale", "the HPA controller was able to get the target's "
              "current scale", now)
    events, reason = [], ""
    if (scale.get("spec") or {}).get("replicas", 0) == 0 and low != 0:
        condition(status, SCALING_ACTIVE, "False", "ScalingDisabled",
                  "scaling is disabled since the replica count of the target is zero", now)
        return Decision(0, False, _finish(status, 0), events)
    if current > high or current < low:
        desired = high if current > high else low
        reason = ("Current number of replicas above Spec.MaxReplicas" if current > high
                  else "Current number of replicas below Spec.MinReplicas")
    else:
        proposal, label, status["currentMetrics"], events = compute(hpa, current, pods, samples, now, status,
                                                                    _tolerances(hpa, tolerance))
        if proposal == -1:
            first = events[0][2].removeprefix("the HPA was unable to compute the replica count: ")
            events.append(("Warning", "FailedComputeMetricsReplicas", f"invalid metrics ({len(events)} invalid out "
                           f"of {len(events)}), first error is: failed to get {label or 'resource'} metric: {first}"))
            return Decision(current, False, _finish(status, current), events)
        desired = max(proposal, 0)
        reason = f"{label} above target" if desired > current else "All metrics below target"
        desired = _normalize(hpa, memory, status, current, desired, now, down_window)
    rescale = desired != current
    if rescale:
        events.append(("Normal", "SuccessfulRescale", f"New size: {desired}; reason: {reason}"))
        condition(status, ABLE_TO_SCALE, "True", "SucceededRescale",
                  f"the HPA controller was able to update the target scale to {desired}", now)
        status["lastScaleTime"] = rfc3339(now)
        (memory.ups if desired > current else memory.downs).append((now, abs(desired - current)))
    return Decision(desired, rescale, _finish(status, desired), events)


def _normalize(hpa: dict, memory: Memory, status: dict, current: int, desired: int, now: float,
               down_window: int) -> int:
    spec = hpa["spec"]
    if spec.get("behavior") is None:
        stabilized = _stabilize_plain(memory, desired, now, down_window)
        why = READY if stabilized == desired else DOWN_STABILIZED
        final, limited = _bounds(current, stabilized, spec.get("minReplicas") or 1, spec["maxReplicas"])
    else:
        stabilized, final, why, limited = _with_behavior(hpa, memory, current, desired, now, down_window)
    condition(status, ABLE_TO_SCALE, "True", *why, now)
    condition(status, SCALING_LIMITED, "True" if final != stabilized else "False", *limited, now)
    return final


def _tolerances(hpa: dict, default: float) -> tuple[float, float]:
    """(scale-down, scale-up): each direction's behavior `tolerance` (HPAConfigurableTolerance), else the
    controller's."""
    behavior = hpa["spec"].get("behavior") or {}

    def of(direction: str) -> float:
        given = (behavior.get(direction) or {}).get("tolerance")
        return float(quantity.parse_quantity(given)) if given is not None else default
    return of("scaleDown"), of("scaleUp")


def _status(hpa: dict, scale: dict) -> dict:
    old = hpa.get("status") or {}
    status = {k: v for k, v in old.items() if k in ("lastScaleTime", "conditions", "currentMetrics")}
    status["conditions"] = [dict(c) for c in old.get("conditions") or []]
    status["currentReplicas"] = (scale.get("spec") or {}).get("replicas", 0)  # as horizontal.go reads it
    status["observedGeneration"] = (hpa.get("metadata") or {}).get("generation")
    return status


def _finish(status: dict, desired: int) -> dict:
    status["desiredReplicas"] = desired
    return {k: v for k, v in status.items() if v is not None}
