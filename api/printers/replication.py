"""kubectl's columns of a ReplicationController (`printReplicationController`: NAME DESIRED CURRENT
READY AGE) and a PodTemplate (`printPodTemplate`: TEMPLATE CONTAINERS IMAGES POD LABELS)."""
from __future__ import annotations

from api.printers.workloads import Row, age, template_cells


def _labels(labels: dict | None) -> str:
    return ",".join(f"{k}={v}" for k, v in sorted((labels or {}).items())) or "<none>"


def _rc(rc: dict, wide: bool) -> list[str]:
    spec, status = rc.get("spec") or {}, rc.get("status") or {}
    cells = [rc["metadata"]["name"], str(spec.get("replicas", 0)), str(status.get("replicas", 0)),
             str(status.get("readyReplicas", 0)), age(rc["metadata"].get("creationTimestamp"))]
    if wide:
        cells += template_cells({"spec": {**spec, "selector": None}}, True)[:2] + [_labels(spec.get("selector"))]
    return cells


def _pod_template(pt: dict, wide: bool) -> list[str]:
    template = pt.get("template") or {}
    containers = (template.get("spec") or {}).get("containers") or []
    return [pt["metadata"]["name"], ",".join(c.get("name", "") for c in containers),
            ",".join(c.get("image", "") for c in containers), _labels((template.get("metadata") or {}).get("labels"))]


COLUMNS: dict[str, tuple[list[str], list[str], Row]] = {
    "ReplicationController": (["NAME", "DESIRED", "CURRENT", "READY", "AGE"], ["CONTAINERS", "IMAGES", "SELECTOR"],
                              _rc),
    "PodTemplate": (["TEMPLATE", "CONTAINERS", "IMAGES", "POD LABELS"], [], _pod_template),
}
