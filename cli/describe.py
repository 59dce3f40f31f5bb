"""`kubus describe`: an object's metadata, status, conditions and the Events about it."""
from __future__ import annotations

import json

import yaml

from api.annotations import FILTER_RESULT, SCORE_RESULT, SELECTED_NODE
from api.printers.columns import table
from api.printers.workloads import age, pod_status
from api.resources import pod_requests, quantity_of
from api.times import seconds
from cli.apply import LAST_APPLIED
from cli.describe_apps import daemonset_lines, statefulset_lines
from cli.describe_autoscaling import hpa_lines
from cli.describe_batch import cronjob_lines, job_lines
from cli.describe_config import configmap_lines, secret_lines
from cli.describe_net import service_lines
from cli.describe_policy import budget_lines
from cli.describe_storage import claim_lines, class_lines, volume_lines
from runtime.client import Client


def describe(client: Client, kind: str, obj: dict) -> str:
    meta = obj["metadata"]
    lines = [f"Name:         {meta['name']}"]
    if meta.get("namespace"):
        lines.append(f"Namespace:    {meta['namespace']}")
    shown = {k: v for k, v in (meta.get("annotations") or {}).items() if k != LAST_APPLIED}  # kubectl skips it too
    lines += [_map("Labels", meta.get("labels")), _map("Annotations", shown),
              f"Created:      {meta.get('creationTimestamp')} ({age(meta.get('creationTimestamp'))} ago)",
              f"UID:          {meta.get('uid')}", f"Revision:     {meta.get('resourceVersion')}"]
    if meta.get("deletionTimestamp"):
        lines.append(f"Terminating:  since {meta['deletionTimestamp']} (grace {meta.get('deletionGracePeriodSeconds')}s)")
    for ref in meta.get("ownerReferences") or []:
        lines.append(f"Controlled By:  {ref['kind']}/{ref['name']}")
    if kind == "Pod":
        lines += _pod(obj) + _decision(meta.get("annotations") or {})
    elif kind == "Service":
        lines += service_lines(client, obj)
    elif kind == "Job":
        lines += job_lines(obj)
    elif kind == "CronJob":
        lines += cronjob_lines(obj)
    elif kind in ("DaemonSet", "StatefulSet"):
        lines += (daemonset_lines if kind == "DaemonSet" else statefulset_lines)(
            obj, client.list("Pod", meta["namespace"]).items)
    elif kind == "HorizontalPodAutoscaler":
        lines += hpa_lines(obj)
    elif kind in ("ConfigMap", "Secret"):
        lines += (configmap_lines if kind == "ConfigMap" else secret_lines)(obj)
    elif kind in ("PersistentVolume", "StorageClass"):
        lines += (volume_lines if kind == "PersistentVolume" else class_lines)(obj)
    elif kind == "PersistentVolumeClaim":
        lines += claim_lines(client, obj)
    elif kind == "PodDisruptionBudget":
        lines += budget_lines(obj)
    elif kind == "Node":
        on_node = client.list("Pod", None, field_selector=f"spec.nodeName={meta['name']}").items
        lines += node_lines(obj, on_node)
    else:
        lines += ["Spec:", _indent(yaml.safe_dump(obj.get("spec") or {}, sort_keys=False))]
        if obj.get("status"):
            lines += ["Status:", _indent(yaml.safe_dump(_without_conditions(obj["status"]), sort_keys=False))]
    lines += _conditions(obj) + _events(client, kind, meta)
    return "\n".join(line for line in lines if line is not None)


def _map(title: str, values: dict | None) -> str:
    if not values:
        return f"{title + ':':<14}<none>"
    items = [f"{k}={v}" for k, v in sorted(values.items())]
    return f"{title + ':':<14}" + ("\n" + " " * 14).join(items)


def _indent(text: str) -> str:
    return "\n".join("  " + line for line in text.rstrip().splitlines())


def _without_conditions(status: dict) -> dict:
    return {k: v for k, v in status.items() if k != "conditions"}


def _pod(pod: dict) -> list[str]:
    spec, status = pod["spec"], pod.get("status") or {}
    lines = [f"Node:         {spec.get('nodeName') or '<none>'}", f"Status:       {pod_status(pod)}",
             f"Priority:     {spec.get('priority', 0)}"]
    if spec.get("initContainers"):  # as kubectl: the init containers first, in their order
        lines += ["Init Containers:"] + _containers(spec["initContainers"], status.get("initContainerStatuses"))
    return lines + ["Containers:"] + _containers(spec.get("containers") or [], status.get("containerStatuses"))


def _containers(specs: list[dict], statuses: list[dict] | None) -> list[str]:
    states = {s["name"]: s for s in statuses or []}
    lines: list[str] = []
    for c in specs:
        lines += [f"  {c['name']}:", _field("Image", c.get("image"))]
        if c.get("command"):
            lines.append(_field("Command", " ".join(c["command"])))
        state = states.get(c["name"])
        if state:
            lines += _state("State", state.get("state")) + _state("Last State", state.get("lastState")) + [
                _field("Ready", state.get("ready")), _field("Restarts", state.get("restartCount", 0))]
    return lines


def _field(label: str, value: object, depth: int = 4) -> str:
    return f"{' ' * depth}{label + ':':<9} {value}"


def _state(label: str, state: dict | None) -> list[str]:
    """`Waiting` / `Running` / `Terminated` and what kubectl shows under it (reason, exit code)."""
    if not state:
        return [] if label == "Last State" else [_field(label, "Unknown")]
    kind, detail = next(iter(state.items()))
    detail = detail or {}
    lines = [_field(label, kind.capitalize())]
    for key, title in (("reason", "Reason"), ("message", "Message"), ("exitCode", "Exit Code"),
                       ("signal", "Signal"), ("startedAt", "Started"), ("finishedAt", "Finished")):
        if detail.get(key) is not None and detail.get(key) != "":
            lines.append(_field(title, detail[key], depth=6))
    return lines


def node_lines(node: dict, pods: list[dict]) -> list[str]:
    """kubectl's node view: taints, schedulability, addresses, capacity, the pods it runs and what
    they request against what it can allocate."""
    spec, status = node.get("spec") or {}, node.get("status") or {}
    taints = [f"{t['key']}{'=' + t['value'] if t.get('value') else ''}:{t['effect']}" for t in spec.get("taints") or []]
    lines = [f"Taints:       {(chr(10) + ' ' * 14).join(taints) or '<none>'}",
             f"Unschedulable: {str(bool(spec.get('unschedulable'))).lower()}",
             _map("Addresses", {a["type"]: a["address"] for a in status.get("addresses") or []}),
             _map("Capacity", status.get("capacity")), _map("Allocatable", status.get("allocatable"))]
    running = [p for p in pods if (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
    rows = [["Namespace", "Name", "CPU Requests", "Memory Requests", "Age"]]
    total: dict[str, int] = {}
    for pod in running:
        asked = pod_requests(pod["spec"])
        for name, amount in asked.items():
            total[name] = total.get(name, 0) + amount
        rows.append([pod["metadata"].get("namespace", ""), pod["metadata"]["name"], _amount("cpu", asked.get("cpu", 0)),
                     _amount("memory", asked.get("memory", 0)), age(pod["metadata"].get("creationTimestamp"))])
    lines += [f"Non-terminated Pods:  ({len(running)} in total)", _indent(table(rows)) if running else "  <none>"]
    allocatable = status.get("allocatable") or {}
    usage = [["Resource", "Requests"]] + [
        [name, f"{_amount(name, total.get(name, 0))} ({_percent(total.get(name, 0), name, allocatable)})"]
        for name in ("cpu", "memory")]
    return lines + ["Allocated resources:", _indent(table(usage))]


def _amount(name: str, amount: int) -> str:
    if name == "cpu":
        return f"{amount}m" if amount % 1000 else str(amount // 1000)
    return f"{amount // 2**20}Mi" if amount and amount % 2**20 == 0 else str(amount)


def _percent(amount: int, name: str, allocatable: dict) -> str:
    whole = quantity_of(name, allocatable[name]) if name in allocatable else 0
    return f"{amount * 100 // whole}%" if whole else "0%"


def _decision(annotations: dict) -> list[str]:
    """The scheduler's per-node filter verdicts and scores, when its profile records them."""
    if FILTER_RESULT not in annotations:
        return []
    filters, scores = json.loads(annotations[FILTER_RESULT]), json.loads(annotations.get(SCORE_RESULT) or "{}")
    rows = [["Node", "Filters", "Score", "Scores by plugin"]]
    for node in sorted(filters, key=lambda n: -sum(scores.get(n, {}).values())):
        failed = [f"{p}: {v}" for p, v in filters[node].items() if v != "passed"]
        per_plugin = ", ".join(f"{p}={s}" for p, s in sorted(scores.get(node, {}).items()))
        rows.append([node, "; ".join(failed) or "passed", str(sum(scores.get(node, {}).values())) if node in scores
                     else "-", per_plugin])
    return [f"Scheduled to: {annotations.get(SELECTED_NODE, '')}", "Scheduling decision:", _indent(table(rows))]


def _conditions(obj: dict) -> list[str]:
    conditions = (obj.get("status") or {}).get("conditions") or []
    if not conditions:
        return []
    rows = [["Type", "Status", "Reason", "Message"]]
    rows += [[c.get("type", ""), c.get("status", ""), c.get("reason") or "", c.get("message") or ""]
             for c in conditions]
    return ["Conditions:", _indent(table(rows))]


def _events(client: Client, kind: str, meta: dict) -> list[str]:
    events = client.list("Event", namespace=meta.get("namespace") or "default",
                         field_selector=f"involvedObject.name={meta['name']}").items
    events = [e for e in events if (e.get("involvedObject") or {}).get("kind") == kind]
    if not events:
        return ["Events:       <none>"]
    rows = [["Type", "Reason", "Age", "From", "Message"]]
    for e in sorted(events, key=event_order):
        rows.append([e.get("type", ""), e.get("reason", ""), age(_event_time(e)),
                     (e.get("source") or {}).get("component") or e.get("reportingComponent") or "",
                     e.get("message", "")])
    return ["Events:", _indent(table(rows))]


def _event_time(event: dict) -> str | None:
    return event.get("lastTimestamp") or event.get("eventTime") or event["metadata"].get("creationTimestamp")


def event_order(event: dict) -> tuple[float, int]:
    """Oldest first: by time, then by when the store wrote it (Events of one second, such as a
    rolling update's ScalingReplicaSet, keep the order they happened in)."""
    rv = str(event["metadata"].get("resourceVersion") or "")
    return seconds(_event_time(event)), int(rv) if rv.isdigit() else 0
