"""`kubus describe daemonset`: the lines kubectl's DaemonSetDescriber prints between the metadata and
the events — selector, node selector, the status counts, the pods' phases and the template."""
from __future__ import annotations

from api.printers.apps import node_selector_text
from api.printers.workloads import selector_text
from api.selectors import from_label_selector


def _phases(ds: dict, pods: list[dict]) -> str:
    selector = from_label_selector(ds["spec"].get("selector"))
    mine = [p for p in pods if selector.matches(p["metadata"].get("labels"))]
    count = {phase: sum(1 for p in mine if (p.get("status") or {}).get("phase") == phase)
             for phase in ("Running", "Pending", "Succeeded", "Failed")}
    return f"{count['Running']} Running / {count['Pending']} Waiting / {count['Succeeded']} Succeeded / " \
           f"{count['Failed']} Failed"


def daemonset_lines(ds: dict, pods: list[dict]) -> list[str]:
    spec, status = ds["spec"], ds.get("status") or {}
    template = (spec.get("template") or {}).get("spec") or {}
    lines = [f"Selector:       {selector_text(spec.get('selector'))}",
             f"Node-Selector:  {node_selector_text(template.get('nodeSelector'))}",
             f"Desired Number of Nodes Scheduled: {status.get('desiredNumberScheduled', 0)}",
             f"Current Number of Nodes Scheduled: {status.get('currentNumberScheduled', 0)}",
             f"Number of Nodes Scheduled with Up-to-date Pods: {status.get('updatedNumberScheduled', 0)}",
             f"Number of Nodes Scheduled with Available Pods: {status.get('numberAvailable', 0)}",
             f"Number of Nodes Misscheduled: {status.get('numberMisscheduled', 0)}",
             f"Pods Status:  {_phases(ds, pods)}",
             "Pod Template:"]
    for c in template.get("containers") or []:
        lines += [f"  {c['name']}:", f"    Image:    {c.get('image')}"]
    return lines
