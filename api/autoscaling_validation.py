"""A HorizontalPodAutoscaler's validation (pkg/apis/autoscaling/validation: ValidateHorizontalPodAutoscaler)
with Kubernetes' messages: the replica bounds, the target reference, each metric (one source, the one its
type names; a resource target of utilization or average value, not both), the behavior's rules."""
from __future__ import annotations

from api import quantity
from api.autoscaling import MAX_PERIOD_S, MAX_WINDOW_S, METRIC_TYPES, POLICY_TYPES, SELECT_POLICIES
from api.status import Cause

_SOURCES = {"Object": "object", "Pods": "pods", "Resource": "resource", "ContainerResource": "containerResource",
            "External": "external"}


def _show(value) -> str:
    return f'"{value}"' if isinstance(value, str) else str(value)


def _invalid(path: str, value, message: str) -> Cause:
    return Cause(path, f"Invalid value: {_show(value)}: {message}")


def _required(path: str, message: str = "") -> Cause:
    return Cause(path, "Required value" + (f": {message}" if message else ""), "FieldValueRequired")


def _unsupported(path: str, value, allowed) -> Cause:
    supported = ", ".join(f'"{a}"' for a in allowed)
    return Cause(path, f'Unsupported value: "{value}": supported values: {supported}', "FieldValueNotSupported")


def validate_hpa(hpa: dict) -> list[Cause]:
    spec = hpa.get("spec") or {}
    low, high = spec.get("minReplicas"), spec.get("maxReplicas") or 0
    causes = []
    if low is not None and low < 1:
        causes.append(_invalid("spec.minReplicas", low, "must be greater than or equal to 1"))
    if high < 1:
        causes.append(_invalid("spec.maxReplicas", high, "must be greater than 0"))
    if low is not None and high < low:
        causes.append(_invalid("spec.maxReplicas", high, "must be greater than or equal to `minReplicas`"))
    ref = spec.get("scaleTargetRef") or {}
    causes += [_required(f"spec.scaleTargetRef.{key}") for key in ("kind", "name") if not ref.get(key)]
    for i, metric in enumerate(spec.get("metrics") or []):
        causes += _metric(f"spec.metrics[{i}]", metric)
    behavior = spec.get("behavior") or {}
    for direction in ("scaleUp", "scaleDown"):
        if behavior.get(direction) is not None:
            causes += _rules(f"spec.behavior.{direction}", behavior[direction])
    return causes


def _metric(path: str, metric: dict) -> list[Cause]:
    kind = metric.get("type") or ""
    if not kind:
        return [_required(f"{path}.type", "must specify a metric source type")]
    if kind not in METRIC_TYPES:
        return [_unsupported(f"{path}.type", kind, METRIC_TYPES)]
    present = [field for field in _SOURCES.values() if metric.get(field) is not None]
    causes = [Cause(f"{path}.{field}", "Forbidden: must populate the given metric source only", "FieldValueForbidden")
              for field in present if field != _SOURCES[kind]]
    source = metric.get(_SOURCES[kind])
    if source is None:
        return causes + [_required(f"{path}.{_SOURCES[kind]}", "must populate information for the given metric source")]
    if kind in ("Resource", "ContainerResource"):
        causes += _resource(f"{path}.{_SOURCES[kind]}", source, kind == "ContainerResource")
    return causes


def _resource(path: str, source: dict, container: bool) -> list[Cause]:
    causes = [] if source.get("name") else [_required(f"{path}.name", "must specify a resource name")]
    if container and not source.get("container"):
        causes.append(_required(f"{path}.container", "must specify a container"))
    target = source.get("target") or {}
    causes += _target(f"{path}.target", target)
    if target.get("averageUtilization") is None and target.get("averageValue") is None:
        causes.append(_required(f"{path}.target.averageUtilization",
                                "must set either a target raw value or a target utilization"))
    if target.get("averageUtilization") is not None and target.get("averageValue") is not None:
        causes.append(_invalid(f"{path}.target.averageValue", target["averageValue"],
                               "may not set both a target raw value and a target utilization"))
    return causes


def _target(path: str, target: dict) -> list[Cause]:
    causes = []
    if target.get("type") not in ("Utilization", "Value", "AverageValue"):
        causes.append(_invalid(f"{path}.type", target.get("type") or "",
                               "must be either Utilization, Value, or AverageValue"))
    for key in ("value", "averageValue"):
        if target.get(key) is not None and _positive(target[key]) is not True:
            causes.append(_invalid(f"{path}.{key}", target[key], "must be positive"))
    if target.get("averageUtilization") is not None and target["averageUtilization"] < 1:
        causes.append(_invalid(f"{path}.averageUtilization", target["averageUtilization"], "must be greater than 0"))
    return causes


def _positive(value) -> bool | None:
    try:
        return quantity.parse_quantity(value) > 0
    except ValueError:
        return None


def _at_least_zero(value) -> bool:
    try:
        return quantity.parse_quantity(value) >= 0
    except ValueError:
        return False


def _rules(path: str, rules: dict) -> list[Cause]:
    causes, window = [], rules.get("stabilizationWindowSeconds")
    if window is not None and window < 0:
        causes.append(_invalid(f"{path}.stabilizationWindowSeconds", window, "must be greater than or equal to zero"))
    if window is not None and window > MAX_WINDOW_S:
        causes.append(_invalid(f"{path}.stabilizationWindowSeconds", window,
                               f"must be less than or equal to {MAX_WINDOW_S}"))
    if rules.get("selectPolicy") is not None and rules["selectPolicy"] not in SELECT_POLICIES:
        causes.append(_unsupported(f"{path}.selectPolicy", rules["selectPolicy"], SELECT_POLICIES))
    if not rules.get("policies"):
        causes.append(_required(f"{path}.policies", "must specify at least one Policy"))
    for i, policy in enumerate(rules.get("policies") or []):
        causes += _policy(f"{path}.policies[{i}]", policy)
    tolerance = rules.get("tolerance")
    if tolerance is not None and not _at_least_zero(tolerance):
        causes.append(_invalid(f"{path}.tolerance", tolerance, "must be greater than or equal to zero"))
    return causes


def _policy(path: str, policy: dict) -> list[Cause]:
    causes = [] if policy.get("type") in POLICY_TYPES else [_unsupported(f"{path}.type", policy.get("type") or "",
                                                                          POLICY_TYPES)]
    if (policy.get("value") or 0) <= 0:
        causes.append(_invalid(f"{path}.value", policy.get("value") or 0, "must be greater than zero"))
    period = policy.get("periodSeconds") or 0
    if period <= 0:
        causes.append(_invalid(f"{path}.periodSeconds", period, "must be greater than zero"))
    if period > MAX_PERIOD_S:
        causes.append(_invalid(f"{path}.periodSeconds", period, f"must be less than or equal to {MAX_PERIOD_S}"))
    return causes
