"""kubectl's columns of a HorizontalPodAutoscaler (`printHorizontalPodAutoscaler`): NAME REFERENCE TARGETS
MINPODS MAXPODS REPLICAS AGE; TARGETS as `formatHPAMetrics` writes them (`cpu: 44%/50%`, at most two and
`+ N more...`)."""
from __future__ import annotations

from api import quantity
from api.printers.workloads import Row, age

SHOWN = 2


def _resource(spec: dict, status: dict | None) -> str:
    target = spec.get("target") or {}
    current = "<unknown>"
    if target.get("averageValue") is not None:
        if status and (status.get("current") or {}).get("averageValue") is not None:
            current = quantity.show(status["current"]["averageValue"])
        return f"{spec.get('name')}: {current}/{quantity.show(target['averageValue'])}"
    if status and (status.get("current") or {}).get("averageUtilization") is not None:
        current = f"{status['current']['averageUtilization']}%"
    wanted = f"{target['averageUtilization']}%" if target.get("averageUtilization") is not None else "<auto>"
    return f"{spec.get('name')}: {current}/{wanted}"


def _metric(spec: dict, status: dict | None) -> str:
    kind = spec.get("type")
    if kind == "Resource":
        return _resource(spec.get("resource") or {}, (status or {}).get("resource"))
    if kind == "ContainerResource":
        source = spec.get("containerResource") or {}
        return _resource(source, (status or {}).get("containerResource"))
    return "<unknown>/<unknown>"


def targets(hpa: dict) -> str:
    metrics = (hpa.get("spec") or {}).get("metrics") or []
    statuses = (hpa.get("status") or {}).get("currentMetrics") or []
    if not metrics:
        return "<none>"
    shown = [_metric(m, statuses[i] if i < len(statuses) else None) for i, m in enumerate(metrics[:SHOWN])]
    more = len(metrics) - SHOWN
    return ", ".join(shown) + (f" + {more} more..." if more > 0 else "")


def _hpa(hpa: dict, wide: bool) -> list[str]:
    spec, status = hpa.get("spec") or {}, hpa.get("status") or {}
    ref = spec.get("scaleTargetRef") or {}
    low = spec.get("minReplicas")
    return [hpa["metadata"]["name"], f"{ref.get('kind', '')}/{ref.get('name', '')}", targets(hpa),
            "<unset>" if low is None else str(low), str(spec.get("maxReplicas", 0)),
            str(status.get("currentReplicas") or 0), age(hpa["metadata"].get("creationTimestamp"))]


COLUMNS: dict[str, tuple[list[str], list[str], Row]] = {
    "HorizontalPodAutoscaler": (["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"], [], _hpa),
}
