"""The Node a kubelet registers and the Lease it renews."""
from __future__ import annotations

import platform
from dataclasses import dataclass, field

from api.times import micro_time, rfc3339

KUBELET_VERSION = "v1.35.4-kubus"
LEASE_NAMESPACE = "kube-node-lease"
LEASE_DURATION_S = 40
RENEW_INTERVAL_S = 10.0  # 40 s x 0.25
CONDITIONS = (
    ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
    ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
)


@dataclass
class NodeConfig:
    name: str
    runtime: str = "process"
    capacity: dict[str, str] = field(default_factory=lambda: {"cpu": "4", "memory": "8Gi", "pods": "110"})
    labels: dict[str, str] = field(default_factory=dict)
    taints: list[dict] = field(default_factory=list)
    ip: str = "127.0.0.1"


def _hostname_label(name: str) -> str:
    """A label value has at most 63 characters; a longer node name is labelled with its first DNS label."""
    return name if len(name) <= 63 else name.split(".", 1)[0][:63]


def ready_condition(not_ready: tuple[str, str] | None, now: float, before: dict | None = None) -> dict:
    """The Ready condition: the kubelet's own words, or (reason, message) of what keeps it from ready
    (the kubelet's `KubeletNotReady` with "container runtime is down", "container runtime network not
    ready: …"). Its transition time stays while its status does."""
    _, status, reason, message = CONDITIONS[0]
    if not_ready is not None:
        status, (reason, message) = "False", not_ready
    stamp = rfc3339(now)
    since = before["lastTransitionTime"] if before and before.get("status") == status else stamp
    return {"type": "Ready", "status": status, "reason": reason, "message": message, "lastHeartbeatTime": stamp,
            "lastTransitionTime": since}


def node_object(cfg: NodeConfig, runtime_version: str, now: float, not_ready: tuple[str, str] | None = None) -> dict:
    stamp = rfc3339(now)
    conditions = [{"type": t, "status": s, "reason": r, "message": m, "lastHeartbeatTime": stamp,
                   "lastTransitionTime": stamp} for t, s, r, m in CONDITIONS[1:]]
    conditions.insert(0, ready_condition(not_ready, now))
    labels = {"kubernetes.io/hostname": _hostname_label(cfg.name), "kubernetes.io/os": "linux",
              "kubernetes.io/arch": platform.machine().replace("x86_64", "amd64"), **cfg.labels}
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": cfg.name, "labels": labels},
            "spec": {"taints": cfg.taints} if cfg.taints else {},
            "status": {"capacity": dict(cfg.capacity), "allocatable": dict(cfg.capacity), "conditions": conditions,
                       "addresses": [{"type": "InternalIP", "address": cfg.ip}, {"type": "Hostname", "address": cfg.name}],
                       "nodeInfo": {"kubeletVersion": KUBELET_VERSION, "containerRuntimeVersion": runtime_version,
                                    "operatingSystem": "linux", "architecture": labels["kubernetes.io/arch"]}}}


def lease_object(node: str, uid: str | None, now: float) -> dict:
    meta = {"name": node, "namespace": LEASE_NAMESPACE}
    if uid:
        meta["ownerReferences"] = [{"apiVersion": "v1", "kind": "Node", "name": node, "uid": uid}]
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": meta,
            "spec": {"holderIdentity": node, "leaseDurationSeconds": LEASE_DURATION_S,
                     "renewTime": micro_time(now)}}
