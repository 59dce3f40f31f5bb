"""kubectl's columns of the core and workload kinds (`pkg/printers/internalversion/printers.go`):
STATUS of a pod, AGE, a selector, one row function per kind."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Callable

from api.times import seconds

Row = Callable[[dict, bool], list[str]]


def age(timestamp: str | None, now: datetime | None = None) -> str:
    if not timestamp:
        return "<unknown>"
    secs = int((now or datetime.now(timezone.utc)).timestamp() - seconds(timestamp))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if secs >= size * (2 if unit != "d" else 1):
            whole, rest = divmod(secs, size)
            sub = {"d": ("h", 3600), "h": ("m", 60), "m": ("s", 1)}[unit]
            extra = rest // sub[1]
            return f"{whole}{unit}{extra}{sub[0]}" if extra and whole < 10 else f"{whole}{unit}"
    return f"{max(secs, 0)}s"


def _conditions(obj: dict) -> dict[str, dict]:
    return {c.get("type"): c for c in (obj.get("status") or {}).get("conditions") or []}


def pod_status(pod: dict) -> str:
    """kubectl's STATUS column, ported from its printPod: the first init container that has not
    completed (`Init:1/2`, `Init:CrashLoopBackOff`, `Init:Error`), else the last app container that
    waits or has terminated, else the phase; `Terminating` while a deleted pod has not finished.
    A pod with no phase yet reads `Pending` (the phase Kubernetes' apiserver gives it on create)."""
    status = pod.get("status") or {}
    phase = status.get("phase") or "Pending"
    reason = status.get("reason") or phase
    if any(c.get("type") == "PodScheduled" and c.get("reason") == "SchedulingGated"
           for c in status.get("conditions") or []):
        reason = "SchedulingGated"
    initializing = _init_reason(pod)
    if initializing is not None:
        reason = initializing
    if initializing is None or _condition_true(status, "Initialized"):
        reason = _containers_reason(status, reason)
    if pod["metadata"].get("deletionTimestamp"):
        if status.get("reason") == "NodeLost":
            return "Unknown"
        if phase not in ("Succeeded", "Failed"):
            return "Terminating"
    return reason


def _condition_true(status: dict, type_: str) -> bool:
    return any(c.get("type") == type_ and c.get("status") == "True" for c in status.get("conditions") or [])


def _sidecars(pod: dict) -> set[str]:
    """Init containers with `restartPolicy: Always`: they keep running beside the app containers."""
    return {c["name"] for c in pod["spec"].get("initContainers") or [] if c.get("restartPolicy") == "Always"}


def _init_reason(pod: dict) -> str | None:
    """Why the pod is still initializing, from the first init container that is not done; None
    when each has completed (or, for a sidecar, started)."""
    sidecars, total = _sidecars(pod), len(pod["spec"].get("initContainers") or [])
    for i, cs in enumerate((pod.get("status") or {}).get("initContainerStatuses") or []):
        state = cs.get("state") or {}
        terminated, waiting = state.get("terminated"), state.get("waiting")
        if terminated and terminated.get("exitCode") == 0:
            continue
        if cs.get("name") in sidecars and cs.get("started"):
            continue
        if terminated:
            return "Init:" + _terminated_reason(terminated)
        if waiting and waiting.get("reason") and waiting["reason"] != "PodInitializing":
            return "Init:" + waiting["reason"]
        return f"Init:{i}/{total}"
    return None


def _containers_reason(status: dict, reason: str) -> str:
    """The last app container that waits or has terminated says why; `Completed` beside a
    container still running reads `Running` (or `NotReady` before the pod is Ready)."""
    running = False
    for cs in reversed(status.get("containerStatuses") or []):
        state = cs.get("state") or {}
        if (state.get("waiting") or {}).get("reason"):
            reason = state["waiting"]["reason"]
        elif state.get("terminated") is not None:
            reason = _terminated_reason(state["terminated"])
        elif cs.get("ready") and state.get("running") is not None:
            running = True
    if reason == "Completed" and running:
        return "Running" if _condition_true(status, "Ready") else "NotReady"
    return reason


def _terminated_reason(terminated: dict) -> str:
    if terminated.get("reason"):
        return terminated["reason"]
    if terminated.get("signal"):
        return f"Signal:{terminated['signal']}"
    return f"ExitCode:{terminated.get('exitCode', 0)}"


def _pod(pod: dict, wide: bool) -> list[str]:
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    total = len(pod["spec"].get("containers") or [])
    ready = sum(1 for s in statuses if s.get("ready"))
    restarts = sum(s.get("restartCount", 0) for s in statuses)
    row = [pod["metadata"]["name"], f"{ready}/{total}", pod_status(pod), str(restarts),
           age(pod["metadata"].get("creationTimestamp"))]
    if wide:
        status = pod.get("status") or {}
        row += [status.get("podIP") or "<none>", pod["spec"].get("nodeName") or "<none>",
                status.get("nominatedNodeName") or "<none>"]
    return row


def _node(node: dict, wide: bool) -> list[str]:
    ready = _conditions(node).get("Ready", {}).get("status")
    state = {"True": "Ready", "False": "NotReady"}.get(ready, "Unknown")
    if (node.get("spec") or {}).get("unschedulable"):
        state += ",SchedulingDisabled"
    labels = node["metadata"].get("labels") or {}
    roles = ",".join(sorted(k.split("/", 1)[1] for k in labels if k.startswith("node-role.kubernetes.io/")))
    info = (node.get("status") or {}).get("nodeInfo") or {}
    row = [node["metadata"]["name"], state, roles or "<none>", age(node["metadata"].get("creationTimestamp")),
           info.get("kubeletVersion", "")]
    if wide:
        row += [info.get("containerRuntimeVersion", "<unknown>")]
    return row


def _rs(rs: dict, wide: bool) -> list[str]:
    status = rs.get("status") or {}
    return [rs["metadata"]["name"], str(rs["spec"].get("replicas", 0)), str(status.get("replicas", 0)),
            str(status.get("readyReplicas", 0)),
            age(rs["metadata"].get("creationTimestamp"))] + template_cells(rs, wide)


def _deploy(d: dict, wide: bool) -> list[str]:
    status = d.get("status") or {}
    return [d["metadata"]["name"], f"{status.get('readyReplicas', 0)}/{d['spec'].get('replicas', 0)}",
            str(status.get("updatedReplicas", 0)), str(status.get("availableReplicas", 0)),
            age(d["metadata"].get("creationTimestamp"))] + template_cells(d, wide)


def template_cells(obj: dict, wide: bool) -> list[str]:
    """CONTAINERS, IMAGES, SELECTOR of a workload, for -o wide."""
    if not wide:
        return []
    containers = ((obj["spec"].get("template") or {}).get("spec") or {}).get("containers") or []
    return [",".join(c.get("name", "") for c in containers), ",".join(c.get("image", "") for c in containers),
            selector_text(obj["spec"].get("selector"))]


def selector_text(selector: dict | None) -> str:
    """A label selector as kubectl prints it: `app=web,tier in (a,b),!canary`."""
    parts = [f"{k}={v}" for k, v in sorted(((selector or {}).get("matchLabels") or {}).items())]
    for expr in (selector or {}).get("matchExpressions") or []:
        op, key = expr.get("operator"), expr.get("key", "")
        if op in ("In", "NotIn"):
            parts.append(f"{key} {op.lower()} ({','.join(expr.get('values') or [])})")
        else:
            parts.append(key if op == "Exists" else f"!{key}")
    return ",".join(parts) or "<none>"


def _ns(ns: dict, wide: bool) -> list[str]:
    return [ns["metadata"]["name"], (ns.get("status") or {}).get("phase", ""),
            age(ns["metadata"].get("creationTimestamp"))]


def _event(ev: dict, wide: bool) -> list[str]:
    obj = ev.get("involvedObject") or {}
    return [age(ev.get("lastTimestamp") or ev["metadata"].get("creationTimestamp")), ev.get("type", ""),
            ev.get("reason", ""), f"{(obj.get('kind') or '').lower()}/{obj.get('name', '')}", ev.get("message", "")]


def _lease(lease: dict, wide: bool) -> list[str]:
    return [lease["metadata"]["name"], (lease.get("spec") or {}).get("holderIdentity") or "",
            age(lease["metadata"].get("creationTimestamp"))]


def named(obj: dict, wide: bool) -> list[str]:
    return [obj["metadata"]["name"], age(obj["metadata"].get("creationTimestamp"))]


def _created_at(obj: dict, wide: bool) -> list[str]:
    return [obj["metadata"]["name"], obj["metadata"].get("creationTimestamp") or ""]


def _service_account(sa: dict, wide: bool) -> list[str]:
    return [sa["metadata"]["name"], str(len(sa.get("secrets") or [])), age(sa["metadata"].get("creationTimestamp"))]


def _binding(b: dict, wide: bool) -> list[str]:
    ref, subjects = b.get("roleRef") or {}, b.get("subjects") or []
    cells = [b["metadata"]["name"], f"{ref.get('kind')}/{ref.get('name')}", age(b["metadata"].get("creationTimestamp"))]
    if wide:
        cells += [",".join(s["name"] for s in subjects if s.get("kind") == kind) for kind in ("User", "Group")]
        cells.append(",".join(f"{s.get('namespace', '')}/{s['name']}" for s in subjects
                              if s.get("kind") == "ServiceAccount"))
    return cells


def _priority_class(pc: dict, wide: bool) -> list[str]:
    return [pc["metadata"]["name"], str(pc.get("value", "")), str(bool(pc.get("globalDefault"))).lower(),
            age(pc["metadata"].get("creationTimestamp")), pc.get("preemptionPolicy") or "PreemptLowerPriority"]


def _quota(q: dict, wide: bool) -> list[str]:
    hard, used = (q.get("status") or {}).get("hard") or {}, (q.get("status") or {}).get("used") or {}

    def listed(limits: bool) -> str:
        return ", ".join(f"{k}: {used.get(k, '0')}/{v}" for k, v in sorted(hard.items())
                         if k.startswith("limits.") == limits)
    return [q["metadata"]["name"], age(q["metadata"].get("creationTimestamp")), listed(False), listed(True)]


BINDING_COLUMNS = (["NAME", "ROLE", "AGE"], ["USERS", "GROUPS", "SERVICEACCOUNTS"], _binding)
COLUMNS: dict[str, tuple[list[str], list[str], Row]] = {
    "Pod": (["NAME", "READY", "STATUS", "RESTARTS", "AGE"], ["IP", "NODE", "NOMINATED NODE"], _pod),
    "Node": (["NAME", "STATUS", "ROLES", "AGE", "VERSION"], ["CONTAINER-RUNTIME"], _node),
    "ReplicaSet": (["NAME", "DESIRED", "CURRENT", "READY", "AGE"], ["CONTAINERS", "IMAGES", "SELECTOR"], _rs),
    "Deployment": (["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"], ["CONTAINERS", "IMAGES", "SELECTOR"], _deploy),
    "Namespace": (["NAME", "STATUS", "AGE"], [], _ns),
    "Event": (["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"], [], _event),
    "Lease": (["NAME", "HOLDER", "AGE"], [], _lease),
    "ServiceAccount": (["NAME", "SECRETS", "AGE"], [], _service_account),
    "Role": (["NAME", "CREATED AT"], [], _created_at),
    "ClusterRole": (["NAME", "CREATED AT"], [], _created_at),
    "LimitRange": (["NAME", "CREATED AT"], [], _created_at),
    "RoleBinding": BINDING_COLUMNS,
    "ClusterRoleBinding": BINDING_COLUMNS,
    "PriorityClass": (["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"], [], _priority_class),
    "ResourceQuota": (["NAME", "AGE", "REQUEST", "LIMIT"], [], _quota),
}
