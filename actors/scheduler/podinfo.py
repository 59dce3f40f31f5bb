"""What the scheduler needs of a pod, computed once per revision: effective requests
(`api.resources`), non-zero requests for scoring, host ports, constraints."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from api.resources import pod_requests

DEFAULT_MILLI_CPU = 100  # what scoring counts for a container that requests no cpu
DEFAULT_MEMORY = 200 * 1024 * 1024  # and no memory
TERMINAL = ("Succeeded", "Failed")


def host_ports(spec: dict) -> list[tuple[str, str, int]]:
    """(hostIP, protocol, hostPort) wanted by containers and sidecar init containers."""
    containers = list(spec.get("containers") or []) + [c for c in spec.get("initContainers") or []
                                                        if c.get("restartPolicy") == "Always"]
    return [(p.get("hostIP") or "0.0.0.0", p.get("protocol") or "TCP", p["hostPort"])
            for c in containers for p in c.get("ports") or [] if p.get("hostPort")]


@dataclass
class PodInfo:
    pod: dict
    uid: str
    namespace: str
    name: str
    labels: dict[str, str]
    priority: int
    requests: dict[str, int]  # real requests: cpu in millicores, the rest in units
    nonzero_cpu: int
    nonzero_mem: int
    ports: list[tuple[str, str, int]]
    tolerations: list[dict]
    scheduler_name: str
    node_name: str
    deleting: bool
    terminal: bool
    nominated_node: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # per-plugin precomputations

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def spec(self) -> dict:
        return self.pod["spec"]

    @property
    def affinity(self) -> dict:
        return self.spec.get("affinity") or {}

    @property
    def has_affinity(self) -> bool:
        return bool(self.affinity.get("podAffinity") or self.affinity.get("podAntiAffinity"))


def pod_info(pod: dict) -> PodInfo:
    meta, spec, status = pod["metadata"], pod["spec"], pod.get("status") or {}
    nonzero = pod_requests(spec, {"cpu": DEFAULT_MILLI_CPU, "memory": DEFAULT_MEMORY}) if spec.get("containers") \
        else {}
    return PodInfo(
        pod=pod, uid=meta.get("uid", ""), namespace=meta.get("namespace", ""), name=meta["name"],
        labels=meta.get("labels") or {}, priority=spec.get("priority") or 0, requests=pod_requests(spec),
        nonzero_cpu=nonzero.get("cpu", 0), nonzero_mem=nonzero.get("memory", 0), ports=host_ports(spec),
        tolerations=spec.get("tolerations") or [], scheduler_name=spec.get("schedulerName") or "default-scheduler",
        node_name=spec.get("nodeName") or "", deleting=bool(meta.get("deletionTimestamp")),
        terminal=status.get("phase") in TERMINAL, nominated_node=status.get("nominatedNodeName") or "")
