"""Pods as real containers: creation until a watcher sees the pod Running, on cri nodes.

    python -m bench.containers --nodes 2 --pods 100 --rate 10

Starts store, apiserver, scheduler, the node IPAM controller and one `cri` kubelet per node (each
starts its own containerd, pulling from the local registry), runs one pod on each node first so that
the image is present locally, then creates the pods at the rate and reports p50/p99 of creation →
Running. With every pod running it reports what a running pod costs the node in memory (PSS,
runtime/memory.py): its shim and its pause process, and the kubelet's and containerd's growth over
the same nodes with no pods, each divided by the pods. Needs root, containerd and runc (as the cri
tests do); everything it starts (containerds, containers, the bridge) is removed at the end.
"""
from __future__ import annotations

import argparse
import time
import zlib
from pathlib import Path

from actors.kubelet import podnet
from actors.kubelet.cri import containerd, teardown
from bench.harness import Cluster, progress, result_line, wait_for
from bench.startup import Running, pct
from runtime import logs
from runtime.client import Client
from runtime.memory import PROC, pss_kib
from testkit.registry import session_registry

IMAGE = "busybox:1.35"
SHIM = b"containerd-shim-runc-v2"


def pod(name: str, node: str | None = None) -> dict:
    spec = {"terminationGracePeriodSeconds": 1,
            "containers": [{"name": "c", "image": IMAGE, "command": ["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"],
                            "resources": {"requests": {"cpu": "5m", "memory": "8Mi"}}}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def _children(pid: int) -> list[int]:
    found = []
    for task in (PROC / str(pid) / "task").glob("*/children"):
        try:
            found += [int(c) for c in task.read_text().split()]
        except OSError:
            continue
    return found


def _comm(pid: int) -> str:
    try:
        return (PROC / str(pid) / "comm").read_text().strip()
    except OSError:
        return ""


def shims(sockets: list[str]) -> list[int]:
    """The shims of these containerds (one per pod: containerd 1.6 groups a pod's containers)."""
    wanted = [s.encode() for s in sockets]
    found = []
    for entry in PROC.glob("[0-9]*/cmdline"):
        try:
            line = entry.read_bytes()
        except OSError:
            continue
        if SHIM in line.split(b"\0")[0] and any(w in line for w in wanted):
            found.append(int(entry.parent.name))
    return found


def node_memory(sockets: list[str], kubelets: list[int], daemons: list[int]) -> dict[str, int]:
    """PSS in KiB of the shims, the pause processes, the containers' own processes, the kubelets and containerds."""
    shim_pids = shims(sockets)
    under = [c for s in shim_pids for c in _children(s)]
    pause = [p for p in under if _comm(p) == "catatonit"]
    return {"shims": sum(map(pss_kib, shim_pids)), "pause": sum(map(pss_kib, pause)),
            "workload": sum(pss_kib(p) for p in under if p not in pause), "kubelet": sum(map(pss_kib, kubelets)),
            "containerd": sum(map(pss_kib, daemons)), "shim_count": len(shim_pids)}


def run(nodes: int, rate: float, pods: int) -> dict:
    names = [f"node-{i + 1}" for i in range(nodes)]
    with Cluster("ctr") as cluster:
        cluster.env["KUBUS_CLUSTER_CIDR"] = f"10.{128 + zlib.crc32(cluster.settings.cluster.encode()) % 64}.0.0/16"
        homes = [Path(cluster.settings.data_dir) / "kubelet" / n / "cri" for n in names]
        try:
            return _measure(cluster, names, homes, rate, pods)
        finally:
            cluster.stop()
            for home in homes:
                teardown.teardown(home)
            podnet.clean(cluster.settings.cluster)


def _measure(cluster: Cluster, names: list[str], homes: list[Path], rate: float, pods: int) -> dict:
    registry = session_registry()
    for module in ("store", "actors.apiserver", "actors.scheduler"):
        cluster.start(module)
    cluster.start("actors.controllers", "nodeipam")
    kubelets = [cluster.start("actors.kubelet", "--node", n, "--runtime", "cri", KUBUS_REGISTRY_URL=registry).pid
                for n in names]
    client = Client(cluster.settings, name="bench")
    wait_for(lambda: _ranged(client) >= len(names), 120, f"{len(names)} cri nodes with ranges")
    running = Running()
    client.watch("Pod", "default", handler=running).wait_synced()
    for n in names:  # the image onto every node, then gone: "image present locally"
        client.create(pod(f"warm-{n}", n))
    wait_for(lambda: all(f"warm-{n}" in running.at for n in names), 120, "the warm-up pods Running")
    for n in names:
        client.delete("Pod", f"warm-{n}", "default")
    sockets = [str(containerd.Layout(h.resolve()).socket) for h in homes]
    daemons = [containerd.Containerd(h, "", "").pid() for h in homes]
    wait_for(lambda: not shims(sockets), 60, "the warm-up pods' shims gone")
    idle = node_memory(sockets, kubelets, [d for d in daemons if d])
    created: dict[str, float] = {}
    started = time.monotonic()
    for i in range(pods):
        wait_for(lambda: time.monotonic() >= started + i / rate, 10, "the pace")
        created[f"ctr-{i}"] = time.monotonic()
        client.request_async("create", "Pod", namespace="default", obj=pod(f"ctr-{i}"), timeout=120)
    wait_for(lambda: progress("running", sum(n in running.at for n in created), pods, started)
             or all(n in running.at for n in created), 600, "every pod Running")
    latencies = [running.at[n] - t for n, t in created.items()]
    busy = node_memory(sockets, kubelets, [d for d in daemons if d])
    per = {k: (busy[k] - (idle[k] if k in ("kubelet", "containerd") else 0)) / pods
           for k in ("shims", "pause", "kubelet", "containerd", "workload")}
    return {"startup_p50_s": pct(latencies, 50), "startup_p99_s": pct(latencies, 99),
            **{f"{k}_kib_per_pod": v for k, v in per.items()},
            "overhead_kib_per_pod": per["shims"] + per["pause"] + per["kubelet"] + per["containerd"],
            "shims": busy["shim_count"], "nodes": len(names), "rate": rate, "pods": pods}


def _ranged(client: Client) -> int:
    try:
        return sum(1 for n in client.list("Node").items if (n.get("spec") or {}).get("podCIDR"))
    except Exception:  # noqa: BLE001 - not serving yet
        return 0


def table(result: dict) -> str:
    rows = [("create → Running p50", f"{result['startup_p50_s']:.3f} s"),
            ("create → Running p99", f"{result['startup_p99_s']:.3f} s"),
            ("shim / pod (PSS)", f"{result['shims_kib_per_pod']:.0f} KiB"),
            ("pause / pod (PSS)", f"{result['pause_kib_per_pod']:.0f} KiB"),
            ("kubelet growth / pod", f"{result['kubelet_kib_per_pod']:.0f} KiB"),
            ("containerd growth / pod", f"{result['containerd_kib_per_pod']:.0f} KiB"),
            ("node overhead / pod", f"{result['overhead_kib_per_pod']:.0f} KiB"),
            ("container itself / pod", f"{result['workload_kib_per_pod']:.0f} KiB")]
    return "\n".join(f"{name:<26}{value:>14}" for name, value in rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--rate", type=float, default=10)
    parser.add_argument("--pods", type=int, default=100)
    args = parser.parse_args()
    why = containerd.available()
    if why:
        raise SystemExit(f"no cri node here: {why}")
    logs.configure("warning")
    result = run(args.nodes, args.rate, args.pods)
    print(table(result))
    print(result_line(**result))


if __name__ == "__main__":
    main()
