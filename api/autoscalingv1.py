"""autoscaling/v1's HorizontalPodAutoscaler, served beside v2 (stored as v2), converted as Kubernetes'
pkg/apis/autoscaling/v1/conversion.go converts it: `targetCPUUtilizationPercentage` is a Resource cpu
Utilization metric; the other metrics, the behavior and the conditions ride in the
`autoscaling.alpha.kubernetes.io/*` annotations (metrics in v1's MetricSpec, v2beta1's shape); the
status's cpu Utilization is `currentCPUUtilizationPercentage`. Status metrics other than cpu are not
carried (no v1 client writes status)."""
from __future__ import annotations

import json

API_VERSION = "autoscaling/v1"
KIND = "HorizontalPodAutoscaler"
METRICS = "autoscaling.alpha.kubernetes.io/metrics"
BEHAVIOR = "autoscaling.alpha.kubernetes.io/behavior"
CONDITIONS = "autoscaling.alpha.kubernetes.io/conditions"
ANNOTATIONS = (METRICS, BEHAVIOR, CONDITIONS)
V1_SPEC = ("scaleTargetRef", "minReplicas", "maxReplicas", "targetCPUUtilizationPercentage")


def to_v1(obj: dict) -> dict:
    """A stored (v2) HorizontalPodAutoscaler as autoscaling/v1 shows it."""
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    metrics = spec.get("metrics") or []
    cpu = next((m for m in metrics if _cpu_utilization(m)), None)
    annotations = dict((obj.get("metadata") or {}).get("annotations") or {})
    others = [_metric_v1(m) for m in metrics if not _cpu_utilization(m)]
    _annotate(annotations, METRICS, others)
    _annotate(annotations, BEHAVIOR, spec.get("behavior"))
    _annotate(annotations, CONDITIONS, status.get("conditions"))
    v1_spec = {k: spec[k] for k in V1_SPEC[:3] if k in spec}
    if cpu is not None:
        v1_spec["targetCPUUtilizationPercentage"] = cpu["resource"]["target"]["averageUtilization"]
    v1_status = {k: status[k] for k in ("observedGeneration", "lastScaleTime", "currentReplicas",
                                        "desiredReplicas") if k in status}
    current = next((m for m in status.get("currentMetrics") or () if m.get("type") == "Resource"
                    and (m.get("resource") or {}).get("name") == "cpu"), None)
    if current is not None and "averageUtilization" in (current["resource"].get("current") or {}):
        v1_status["currentCPUUtilizationPercentage"] = current["resource"]["current"]["averageUtilization"]
    v1_status.setdefault("currentReplicas", 0)
    v1_status.setdefault("desiredReplicas", 0)
    meta = {**obj.get("metadata", {}), **({"annotations": annotations} if annotations else {})}
    if not annotations:
        meta.pop("annotations", None)
    return {**obj, "apiVersion": API_VERSION, "metadata": meta, "spec": v1_spec, "status": v1_status}


def to_v2(obj: dict) -> dict:
    """An autoscaling/v1 body as the v2 object to store (the annotations read back into fields)."""
    meta = dict(obj.get("metadata") or {})
    annotations = dict(meta.get("annotations") or {})
    spec = dict(obj.get("spec") or {})
    percent = spec.pop("targetCPUUtilizationPercentage", None)
    metrics = [] if percent is None else [{"type": "Resource", "resource": {
        "name": "cpu", "target": {"type": "Utilization", "averageUtilization": percent}}}]
    metrics += [_metric_v2(m) for m in _read(annotations.pop(METRICS, None)) or ()]
    if metrics:
        spec["metrics"] = metrics
    if (behavior := _read(annotations.pop(BEHAVIOR, None))) is not None:
        spec["behavior"] = behavior
    annotations.pop(CONDITIONS, None)  # status, which a write through the object does not set
    if annotations:
        meta["annotations"] = annotations
    else:
        meta.pop("annotations", None)
    body = {**obj, "apiVersion": "autoscaling/v2", "metadata": meta, "spec": spec}
    body.pop("status", None)
    return body


def _cpu_utilization(metric: dict) -> bool:
    resource = metric.get("resource") or {}
    return metric.get("type") == "Resource" and resource.get("name") == "cpu" \
        and "averageUtilization" in (resource.get("target") or {})


def _metric_v1(metric: dict) -> dict:
    """A v2 MetricSpec in v1's (v2beta1's) shape."""
    kind = metric.get("type", "")
    key = kind[:1].lower() + kind[1:]
    source = metric.get(key) or {}
    target, named = source.get("target") or {}, source.get("metric") or {}
    out: dict = {}
    if kind in ("Resource", "ContainerResource"):
        out = {"name": source.get("name"), **({"container": source["container"]} if "container" in source else {})}
        _put(out, "targetAverageUtilization", target.get("averageUtilization"))
        _put(out, "targetAverageValue", target.get("averageValue"))
    elif kind == "Pods":
        out = {"metricName": named.get("name"), "targetAverageValue": target.get("averageValue")}
        _put(out, "selector", named.get("selector"))
    elif kind in ("Object", "External"):
        out = {"metricName": named.get("name")}
        _put(out, "target", source.get("describedObject"))
        _put(out, "selector" if kind == "Object" else "metricSelector", named.get("selector"))
        _put(out, "targetValue", target.get("value"))
        _put(out, "averageValue" if kind == "Object" else "targetAverageValue", target.get("averageValue"))
    return {"type": kind, key: out}


def _metric_v2(metric: dict) -> dict:
    """v1's (v2beta1's) MetricSpec as v2's."""
    kind = metric.get("type", "")
    key = kind[:1].lower() + kind[1:]
    source = metric.get(key) or {}
    if kind in ("Resource", "ContainerResource"):
        utilization = source.get("targetAverageUtilization")
        target = {"type": "Utilization", "averageUtilization": utilization} if utilization is not None \
            else {"type": "AverageValue", "averageValue": source.get("targetAverageValue")}
        out = {"name": source.get("name"), **({"container": source["container"]} if "container" in source else {}),
               "target": target}
        return {"type": kind, key: out}
    named = {"name": source.get("metricName")}
    _put(named, "selector", source.get("selector") or source.get("metricSelector"))
    if kind == "Pods":
        return {"type": kind, key: {"metric": named,
                                    "target": {"type": "AverageValue", "averageValue": source.get("targetAverageValue")}}}
    average = source.get("averageValue") if kind == "Object" else source.get("targetAverageValue")
    target = {"type": "AverageValue", "averageValue": average} if average is not None \
        else {"type": "Value", "value": source.get("targetValue")}
    out = {"metric": named, "target": target}
    _put(out, "describedObject", source.get("target"))
    return {"type": kind, key: out}


def _put(into: dict, key: str, value) -> None:
    if value is not None:
        into[key] = value


def _annotate(annotations: dict, key: str, value) -> None:
    if value:
        annotations[key] = json.dumps(value, separators=(",", ":"))
    else:
        annotations.pop(key, None)


def _read(text: str | None):
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None


# the versions a built-in kind is served in beside its own: (kind, apiVersion) -> (out of storage, into it)
OTHER_VERSIONS = {(KIND, API_VERSION): (to_v1, to_v2)}
