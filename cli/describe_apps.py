"""`kubus describe daemonset|statefulset`: the lines kubectl's DaemonSetDescriber and StatefulSetDescriber
print between the metadata and the events — selector, the counts, the pods' phases, the template (and a
StatefulSet's update strategy and volume claims)."""
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


def statefulset_lines(sts: dict, pods: list[dict]) -> list[str]:
    """kubectl's StatefulSetDescriber: replicas, update strategy, pods' phases, template and volume claims."""
    spec, status = sts["spec"], sts.get("status") or {}
    strategy = spec.get("updateStrategy") or {}
    lines = [f"Selector:           {selector_text(spec.get('selector'))}",
             f"Replicas:           {spec.get('replicas', 1)} desired | {status.get('replicas', 0)} total",
             f"Update Strategy:    {strategy.get('type', 'RollingUpdate')}"]
    if strategy.get("rollingUpdate") is not None:
        lines.append(f"  Partition:        {(strategy['rollingUpdate'] or {}).get('partition', 0)}")
    lines += [f"Pods Status:        {_phases(sts, pods)}", "Pod Template:"]
    for c in ((spec.get("template") or {}).get("spec") or {}).get("containers") or []:
        lines += [f"  {c['name']}:", f"    Image:    {c.get('image')}"]
    templates = spec.get("volumeClaimTemplates") or []
    lines.append("Volume Claims:" if templates else "Volume Claims:  <none>")
    for t in templates:
        meta, tspec = t.get("metadata") or {}, t.get("spec") or {}
        labels = ",".join(f"{k}={v}" for k, v in sorted((meta.get("labels") or {}).items())) or "<none>"
        lines += [f"  Name:          {meta.get('name')}", f"  StorageClass:  {tspec.get('storageClassName') or ''}",
                  f"  Labels:        {labels}",
                  f"  Capacity:      {((tspec.get('resources') or {}).get('requests') or {}).get('storage', '')}",
                  f"  Access Modes:  [{' '.join(tspec.get('accessModes') or [])}]"]
    return lines
