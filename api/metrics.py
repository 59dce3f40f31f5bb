"""The resource metrics API (`metrics.k8s.io/v1beta1`, as metrics-server serves it): NodeMetrics and PodMetrics,
read-only (get, list); and the pure part of keeping them: each container's and node's last two points of
cumulative CPU (core-nanoseconds) and working-set memory, CPU as Δcumulative/Δt between them, `window` = Δt;
a pod is served only when every container it reported has two points. The kubelets send the points
(actors/kubelet/usage.py); the metrics actor keeps them (actors/metrics); the apiserver authorizes reads and
hands them on; the gateway serves the paths."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from decimal import Decimal

from api import selectors
from api.quantity import BINARY_SI, Amount, canonical
from api.times import rfc3339

GROUP, VERSION = "metrics.k8s.io", "v1beta1"
API_VERSION = f"{GROUP}/{VERSION}"
KINDS = {"PodMetrics": ("pods", True), "NodeMetrics": ("nodes", False)}  # kind -> (resource, namespaced)
BY_RESOURCE = {resource: kind for kind, (resource, _) in KINDS.items()}
SERVICE = "metrics-server"  # the metrics actor's name: its broker user (a controller's), queue and account


@dataclass
class Point:
    time: float
    cpu_ns: int  # cumulative core-nanoseconds
    memory: int  # working set, bytes


@dataclass
class Series:
    """The last two points of one container (or node)."""
    points: list[Point] = field(default_factory=list)

    def add(self, point: Point) -> None:
        if self.points and point.time <= self.points[-1].time:
            return
        if self.points and point.cpu_ns < self.points[-1].cpu_ns:  # restarted: the counter began again
            self.points = []
        self.points = [*self.points[-1:], point]

    def rate(self) -> tuple[int, int, float, float] | None:
        """(nanocores, memory bytes, timestamp, window seconds), or None before two points."""
        if len(self.points) < 2:
            return None
        old, new = self.points
        window = new.time - old.time
        return int((new.cpu_ns - old.cpu_ns) / window), new.memory, new.time, window


def cpu(nanocores: int) -> str:
    return f"{nanocores}n"


def memory(size: int) -> str:
    """Bytes as metrics-server writes them: BinarySI (`24576Ki`)."""
    return canonical(Amount(Decimal(size), BINARY_SI)) if size % 1024 == 0 else str(size)


def _window(seconds: float) -> str:
    return f"{round(seconds, 3):g}s"


def node_metrics(name: str, series: Series, labels: dict[str, str]) -> dict | None:
    rate = series.rate()
    if rate is None:
        return None
    nanocores, size, stamp, window = rate
    return {"kind": "NodeMetrics", "apiVersion": API_VERSION,
            "metadata": {"name": name, "labels": labels, "creationTimestamp": rfc3339(stamp)},
            "timestamp": rfc3339(stamp), "window": _window(window), "usage": {"cpu": cpu(nanocores),
                                                                              "memory": memory(size)}}


def pod_metrics(namespace: str, name: str, containers: dict[str, Series], labels: dict[str, str]) -> dict | None:
    rates = {c: s.rate() for c, s in containers.items()}
    if not rates or any(r is None for r in rates.values()):
        return None
    stamp, window = max(r[2] for r in rates.values()), max(r[3] for r in rates.values())
    return {"kind": "PodMetrics", "apiVersion": API_VERSION,
            "metadata": {"name": name, "namespace": namespace, "labels": labels, "creationTimestamp": rfc3339(stamp)},
            "timestamp": rfc3339(stamp), "window": _window(window),
            "containers": [{"name": c, "usage": {"cpu": cpu(r[0]), "memory": memory(r[1])}}
                           for c, r in sorted(rates.items())]}


def selected(items: list[dict], options: dict) -> list[dict]:
    """A list's label selector (and metadata.name field selector, as metrics-server takes)."""
    labels = selectors.parse(options.get("labelSelector") or "")
    name = (options.get("fieldSelector") or "").removeprefix("metadata.name=")
    return [i for i in items if labels.matches(i["metadata"].get("labels") or {})
            and (not name or i["metadata"]["name"] == name)]


def not_found(kind: str, name: str) -> str:
    resource = KINDS[kind][0]
    return f'{resource}.{GROUP} "{name}" not found'


MAX_COUNTER = (1 << 63) - 1  # what a kubelet's uint64 counters hold, as msgpack carries them


def _count(value) -> bool:
    return type(value) is int and 0 <= value <= MAX_COUNTER


def _labels(value) -> bool:
    return value is None or isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str)
                                                            for k, v in value.items())


def _pod_ok(pod) -> bool:
    return isinstance(pod, dict) and all(isinstance(pod.get(k), str) for k in ("namespace", "name", "uid")) \
        and _labels(pod.get("labels")) and isinstance(pod.get("containers"), list) \
        and all(isinstance(c, dict) and isinstance(c.get("name"), str) and _count(c.get("cpu"))
                and _count(c.get("memory")) for c in pod["containers"])


def valid_sample(body) -> bool:
    """A kubelet's sample as usage.sample makes it: a finite time, counters that are non-negative integers,
    pods with string names and labels. Anything else is dropped whole before it is kept: a NaN or infinite
    time would fail every later read of the metrics, a half-taken sample would leave half a node."""
    if not isinstance(body, dict) or not isinstance(body.get("node"), str) or not _labels(body.get("labels")):
        return False
    at = body.get("time")
    if type(at) not in (int, float) or not math.isfinite(at) or not (_count(body.get("cpu")) and
                                                                     _count(body.get("memory"))):
        return False
    return isinstance(body.get("pods") or [], list) and all(_pod_ok(p) for p in body.get("pods") or [])


ORIGIN = "origin"  # what the metrics actor adds to a PodMetrics for the apiserver: the reporting node and pod uid


def vouched(items: list[dict], pods: list[dict]) -> list[dict]:
    """The PodMetrics whose pod is there now, with the uid reported and bound to the node that reported it,
    without their origin: a kubelet speaks for the pods bound to it only."""
    bound = {((p["metadata"].get("namespace") or ""), p["metadata"]["name"]):
             (p["metadata"].get("uid"), (p.get("spec") or {}).get("nodeName")) for p in pods}
    kept = []
    for item in items:
        origin = item.pop(ORIGIN, None) or {}
        meta = item["metadata"]
        if bound.get((meta.get("namespace") or "", meta["name"])) == (origin.get("uid"), origin.get("node")):
            kept.append(item)
    return kept
