"""`kubus describe hpa`: the lines kubectl's HorizontalPodAutoscalerDescriber (v2) prints between the metadata
and the conditions: the reference, each metric as `( current / target )`, the bounds, the behavior, the pods."""
from __future__ import annotations

from api import quantity


def _resource(metric: dict, status: dict | None) -> str:
    source = metric.get("resource") or metric.get("containerResource") or {}
    target, current = source.get("target") or {}, ((status or {}).get("resource") or
                                                    (status or {}).get("containerResource") or {}).get("current") or {}
    name = source.get("name")
    if target.get("averageValue") is not None:
        shown = quantity.show(current["averageValue"]) if current.get("averageValue") is not None else "<unknown>"
        return f"  resource {name} on pods:  {shown} / {quantity.show(target['averageValue'])}"
    shown = "<unknown>"
    if current.get("averageUtilization") is not None:
        shown = f"{current['averageUtilization']}% ({quantity.show(current.get('averageValue') or 0)})"
    return f"  resource {name} on pods  (as a percentage of request):  {shown} / {target.get('averageUtilization')}%"


def _rules(title: str, rules: dict | None) -> list[str]:
    if not rules:
        return []
    lines = [f"  {title}:", f"    Stabilization Window: {rules.get('stabilizationWindowSeconds', 0)} seconds",
             f"    Select Policy: {rules.get('selectPolicy')}", "    Policies:"]
    lines += [f"      - Type: {p['type']}  Value: {p['value']}  Period: {p['periodSeconds']} seconds"
              for p in rules.get("policies") or []]
    return lines


def hpa_lines(hpa: dict) -> list[str]:
    spec, status = hpa["spec"], hpa.get("status") or {}
    ref = spec.get("scaleTargetRef") or {}
    statuses = status.get("currentMetrics") or []
    lines = [f"Reference:      {ref.get('kind')}/{ref.get('name')}", "Metrics:        ( current / target )"]
    for i, metric in enumerate(spec.get("metrics") or []):
        if metric.get("type") in ("Resource", "ContainerResource"):
            lines.append(_resource(metric, statuses[i] if i < len(statuses) else None))
        else:
            lines.append(f"  {metric.get('type')} metric:  <unknown> (kubus serves the resource metrics API only)")
    lines += [f"Min replicas:   {spec.get('minReplicas')}", f"Max replicas:   {spec.get('maxReplicas')}"]
    behavior = spec.get("behavior")
    if behavior:
        lines += ["Behavior:", *_rules("Scale Up", behavior.get("scaleUp")), *_rules("Scale Down",
                                                                                     behavior.get("scaleDown"))]
    lines.append(f"{ref.get('kind')} pods:  {status.get('currentReplicas', 0)} current / "
                 f"{status.get('desiredReplicas', 0)} desired")
    return lines
