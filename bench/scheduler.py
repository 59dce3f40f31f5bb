"""Scheduling throughput, shaped like kube-scheduler's scheduler_perf SchedulingBasic.

    python -m bench.scheduler --nodes 5000 --pods 10000

Registers N nodes (Node objects only, no kubelets), then creates M basic pods through the bus as
fast as the cluster takes them, and counts bindings as a watcher sees them: scheduled pods per
second overall and the p50/p99 of one-second samples, plus the scheduler's peak memory.
"""
from __future__ import annotations

import argparse
import math
import os
import time
from collections import Counter

from bench.harness import Cluster, CpuMeter, broker_pid, median, progress, result_line, serving, wait_for
from runtime import logs
from runtime.client import Client

IN_FLIGHT = 256


def node(i: int) -> dict:
    name = f"node-{i}"
    alloc = {"cpu": "32", "memory": "128Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                  "topology.kubernetes.io/zone": f"zone-{i % 3}"}},
            "status": {"capacity": alloc, "allocatable": alloc}}


def pod(i: int) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"generateName": "pod-", "namespace": "default"},
            "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                     "resources": {"requests": {"cpu": "100m", "memory": "500Mi"}}}]}}


class Bindings:
    """The watcher's handler: when each binding was seen, in one-second buckets."""

    def __init__(self):
        self.count = 0
        self.buckets: Counter[int] = Counter()
        self.first = self.last = 0.0

    def __call__(self, delta) -> None:
        if delta.type == "MODIFIED" and delta.object["spec"].get("nodeName") and not delta.synthetic:
            now = time.monotonic()
            self.first = self.first or now
            self.last = now
            self.count += 1
            self.buckets[int(now)] += 1


def create_all(client: Client, objects: list[dict], label: str) -> None:
    """Create with up to IN_FLIGHT requests outstanding; any failure stops the run."""
    started, done, inflight = time.monotonic(), 0, []
    for obj in objects:
        inflight.append(client.request_async("create", obj["kind"], namespace=obj["metadata"].get("namespace"),
                                             obj=obj, timeout=120))
        if len(inflight) >= IN_FLIGHT:
            done += _settle(inflight.pop(0))
            progress(label, done, len(objects), started)
    for fut in inflight:
        done += _settle(fut)
        progress(label, done, len(objects), started)


def _settle(fut) -> int:
    reply = fut.result(180)
    if not isinstance(reply, dict) or not reply.get("ok"):
        raise SystemExit(f"a create failed: {reply}")
    return 1


def percentile(ascending: list[float], pct: int) -> float:
    """scheduler_perf's percentile of one-second throughput samples (sorted ascending)."""
    return ascending[max(0, math.ceil(len(ascending) * pct / 100) - 1)] if ascending else 0.0


def peak_rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def run(nodes: int, pods: int) -> dict:
    with Cluster("sched") as cluster:
        cluster.start("store")
        cluster.start("actors.apiserver")
        client = Client(cluster.settings, name="bench")
        wait_for(lambda: serving(client), 30, "the cluster to answer")
        create_all(client, [node(i) for i in range(nodes)], "nodes")
        scheduler = cluster.start("actors.scheduler")
        seen = Bindings()
        client.watch("Pod", "default", handler=seen).wait_synced()
        cpu = CpuMeter({"broker": broker_pid(), "bench": os.getpid(),
                        **{name: proc.pid for name, proc in zip(("store", "apiserver", "scheduler"), cluster.procs)}})
        started = time.monotonic()
        create_all(client, [pod(i) for i in range(pods)], "pods")
        wait_for(lambda: progress("bound", seen.count, pods, started) or seen.count >= pods, 900,
                 "every pod to be bound")
        samples = sorted(n for _second, n in sorted(seen.buckets.items())[1:-1]) or sorted(seen.buckets.values())
        return {"scheduled_pods_per_s": pods / (seen.last - started),
                "p50_pods_per_s": median(samples), "p99_pods_per_s": percentile(samples, 99),
                **cpu.per(pods, "pod"),
                "scheduler_peak_rss_mib": peak_rss_mib(scheduler.pid), "nodes": nodes, "pods": pods}



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=10000)
    args = parser.parse_args()
    logs.configure("warning")
    print(result_line(**run(args.nodes, args.pods)))


if __name__ == "__main__":
    main()
