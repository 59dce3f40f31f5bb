"""kubectl's columns of a DaemonSet (`printDaemonSet`), a StatefulSet (`printStatefulSet`) and a ControllerRevision
(`printControllerRevision`)."""
from __future__ import annotations

from api.printers.workloads import Row, age, template_cells


def node_selector_text(values: dict | None) -> str:
    """labels.FormatLabels: `k=v,...` sorted, or <none>."""
    return ",".join(f"{k}={v}" for k, v in sorted((values or {}).items())) or "<none>"


def _daemonset(ds: dict, wide: bool) -> list[str]:
    status = ds.get("status") or {}
    counts = ("desiredNumberScheduled", "currentNumberScheduled", "numberReady", "updatedNumberScheduled",
              "numberAvailable")
    node_selector = ((ds["spec"].get("template") or {}).get("spec") or {}).get("nodeSelector")
    return [ds["metadata"]["name"], *(str(status.get(c, 0)) for c in counts), node_selector_text(node_selector),
            age(ds["metadata"].get("creationTimestamp"))] + template_cells(ds, wide)


def _statefulset(sts: dict, wide: bool) -> list[str]:
    """READY is readyReplicas/spec.replicas; wide adds CONTAINERS and IMAGES (no SELECTOR)."""
    ready = (sts.get("status") or {}).get("readyReplicas", 0)
    return [sts["metadata"]["name"], f"{ready}/{sts['spec'].get('replicas', 1)}",
            age(sts["metadata"].get("creationTimestamp"))] + template_cells(sts, wide)[:2]


def _controller_revision(cr: dict, wide: bool) -> list[str]:
    owner = next((r for r in cr["metadata"].get("ownerReferences") or [] if r.get("controller")), None)
    controller = "<none>"
    if owner is not None:
        group = owner.get("apiVersion", "").rpartition("/")[0]
        controller = f"{owner['kind'].lower()}{'.' + group if group else ''}/{owner['name']}"
    return [cr["metadata"]["name"], controller, str(cr.get("revision", 0)),
            age(cr["metadata"].get("creationTimestamp"))]


COLUMNS: dict[str, tuple[list[str], list[str], Row]] = {
    "DaemonSet": (["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"],
                  ["CONTAINERS", "IMAGES", "SELECTOR"], _daemonset),
    "StatefulSet": (["NAME", "READY", "AGE"], ["CONTAINERS", "IMAGES"], _statefulset),
    "ControllerRevision": (["NAME", "CONTROLLER", "REVISION", "AGE"], [], _controller_revision),
}
