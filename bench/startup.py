"""Pod startup latency: creation until a watcher sees the pod Running, over hollow nodes.

    python -m bench.startup --nodes 1000 --rate 100 --pods 1000

Starts store, apiserver, scheduler and one kubelet process (or `--kubelets K`) with N hollow (simulated) nodes,
creates M pods at R per second, and reports p50/p90/p99 of creation → Running, and how the
nodes' Leases were renewed meanwhile: the longest time a watcher went without seeing one node's
renewal, and how many renewals came more than one interval late (kubelet renews every 10 s); and
each process's CPU per pod started (the nodes' renewals meanwhile included), the seconds its
garbage collector ran over the whole run and the longest collection (a pause of the process).
With `--idle S`, first S seconds of the renewals alone: their CPU a renewal and in cores.
"""
from __future__ import annotations

import argparse
import math
import os
import time

from actors.kubelet.nodeinfo import LEASE_NAMESPACE, RENEW_INTERVAL_S
from bench.collector import Collections
from bench.harness import Cluster, CpuMeter, broker_pid, progress, result_line, wait_for
from runtime import logs
from runtime.client import Client


def pod(i: int) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"start-{i}", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10",
                                     "resources": {"requests": {"cpu": "10m", "memory": "10Mi"}}}]}}


class Running:
    """The watcher's handler: when each pod was first seen Running."""

    def __init__(self):
        self.at: dict[str, float] = {}

    def __call__(self, delta) -> None:
        name = delta.object["metadata"]["name"]
        if name not in self.at and (delta.object.get("status") or {}).get("phase") == "Running":
            self.at[name] = time.monotonic()


class Renewals:
    """The watcher's handler for Leases: per node, the longest gap between two renewals it saw."""

    def __init__(self):
        self.seen: dict[str, float] = {}
        self.gaps: list[float] = []

    def __call__(self, delta) -> None:
        now, name = time.monotonic(), delta.object["metadata"]["name"]
        if name in self.seen:
            self.gaps.append(now - self.seen[name])
        self.seen[name] = now

    def close(self) -> dict:
        """The gaps up to now included: a node whose renewals stopped counts."""
        now = time.monotonic()
        gaps = self.gaps + [now - t for t in self.seen.values()]
        return {"lease_gap_max_s": round(max(gaps, default=0.0), 2),
                "leases_late": sum(1 for g in gaps if g > 2 * RENEW_INTERVAL_S)}


def pct(values: list[float], p: int) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(len(ordered) * p / 100) - 1)]


def run(nodes: int, rate: float, pods: int, idle: float, processes: int = 1) -> dict:
    with Cluster("start") as cluster:
        collections = Collections()
        for module in ("store", "actors.apiserver", "actors.scheduler"):
            cluster.start(module, **collections.env(module.rpartition(".")[2]))
        client = Client(cluster.settings, name="bench")
        kubelets = [cluster.start("actors.kubelet", "--hollow", str(share), "--prefix", prefix, "--capacity",
                                  "cpu=32,memory=128Gi,pods=110", **collections.env(f"kubelet{suffix}"))
                    for prefix, suffix, share in _spread(nodes, processes)]
        wait_for(lambda: _ready_nodes(client) >= nodes, 300, f"{nodes} nodes Ready")
        running, renewals = Running(), Renewals()
        client.watch("Pod", "default", handler=running).wait_synced()
        client.watch("Lease", LEASE_NAMESPACE, handler=renewals).wait_synced()
        cpu = CpuMeter({"broker": broker_pid(), "bench": os.getpid(), "kubelet": [k.pid for k in kubelets],
                        **{name: proc.pid for name, proc in zip(("store", "apiserver", "scheduler"), cluster.procs)}})
        heartbeats = _heartbeats(cpu, renewals, idle) if idle else {}
        cpu.start()
        created: dict[str, float] = {}
        started = time.monotonic()
        for i in range(pods):
            wait_for(lambda: time.monotonic() >= started + i / rate, 10, "the pace")
            created[f"start-{i}"] = time.monotonic()
            client.request_async("create", "Pod", namespace="default", obj=pod(i), timeout=120)
        wait_for(lambda: progress("running", len(running.at), pods, started) or len(running.at) >= pods, 600,
                 "every pod Running")
        latencies = [running.at[n] - t for n, t in created.items()]
        return {"startup_p50_s": pct(latencies, 50), "startup_p90_s": pct(latencies, 90),
                "startup_p99_s": pct(latencies, 99), **renewals.close(), **cpu.per(pods, "pod"),
                **heartbeats, **collections.figures(), "nodes": nodes, "kubelets": processes, "rate": rate, "pods": pods}


def _spread(nodes: int, processes: int) -> list[tuple[str, str, int]]:
    """Each kubelet process's node name prefix, suffix (none alone, else 0, 1, ...) and share of the nodes."""
    if processes == 1:
        return [("hollow", "", nodes)]
    return [(f"hollow{k}", str(k), nodes // processes + (k < nodes % processes)) for k in range(processes)]


def _heartbeats(cpu: CpuMeter, renewals: Renewals, seconds: float) -> dict:
    """`seconds` of the nodes' renewals alone, before any pod: renewals a second, and each process's
    CPU a renewal (ms) — what 5,000 nodes' heartbeats cost before the first pod."""
    seen = len(renewals.gaps)
    time.sleep(seconds)  # a measuring window, not a wait for a condition
    renewed = len(renewals.gaps) - seen
    per = cpu.per(max(renewed, 1), "renewal")
    return {"idle_renewals_per_s": renewed / seconds, **per,
            "idle_cores": sum(per.values()) * max(renewed, 1) / seconds / 1000}


def _ready_nodes(client: Client) -> int:
    try:
        return sum(1 for n in client.list("Node").items
                   if any(c["type"] == "Ready" and c["status"] == "True" for c in n["status"].get("conditions") or []))
    except Exception:
        return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=100)
    parser.add_argument("--pods", type=int, default=1000)
    parser.add_argument("--idle", type=float, default=0, help="seconds of renewals alone to measure first")
    parser.add_argument("--kubelets", type=int, default=1, help="kubelet processes the nodes are spread over")
    args = parser.parse_args()
    logs.configure("warning")
    print(result_line(**run(args.nodes, args.rate, args.pods, args.idle, args.kubelets)))


if __name__ == "__main__":
    main()
