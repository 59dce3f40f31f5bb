"""How fast actors start, and what a cluster of them costs in memory.

    python -m bench.start [--starts 20] [--tree DIR]

- **start**: an apiserver started `--starts` times against a running store, from `runtime.spawn`'s
  call to its first informer synced (its connection open, its cache loaded): p50 and p90, and the CPU
  the child spent by then. `KUBUS_COLD_START=1` measures `python -m` (the start path before the warm
  parent).
- **up**: `kubus up -f config/cluster.yaml` (with free ports and a service range of its own): the
  time until every actor process said it is ready, then the PSS of the cluster's processes as
  `kubus status` counts it (`runtime.memory`).
- **restart**: `kubus up` of one store and one apiserver; the store (then the apiserver) killed with
  SIGKILL: the time from the kill to the first read served again.
`--tree DIR` runs `kubus up` from another checkout's code (the figures before a change, in one sitting)."""
from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import yaml

from testkit.hosts import free_port
from bench.harness import ROOT, Cluster, cpu_seconds, result_line, serving
from cli.bootstrap import bootstrap
from config.cluster import load_cluster
from runtime import memory
from runtime.client import Client

READY = ("store.active", "actor.standby", "informer.synced", "scheduler.synced", "kubelet.registered",
         "dns.serving", "ingress.serving")
SERVICE_CIDR = "10.200.0.0/16"  # not the tests' range: a proxy as root makes its range local to the host


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def wait_quickly(condition, timeout: float, what: str) -> None:
    """A waiter fine-grained enough to time a start in milliseconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.002)


def actor_starts(starts: int) -> dict[str, float]:
    with Cluster("start") as cluster:
        cluster.env["KUBUS_LOG_LEVEL"] = "info"
        cluster.start("store")
        wait_quickly(lambda: "store.active" in cluster.log_of("store", 0).read_text(), 60, "the store")
        took, cpu = [], []
        for _ in range(starts):
            began = time.monotonic()
            proc = cluster.start("actors.apiserver")
            log = cluster.log_of("actors.apiserver", len(cluster.procs) - 1)
            wait_quickly(lambda: "informer.synced" in log.read_text(), 60, "the apiserver")
            took.append(time.monotonic() - began)
            cpu.append(cpu_seconds(proc.pid))
            proc.terminate()
            proc.wait(10)
    return {"start_p50_ms": percentile(took, 0.5) * 1000, "start_p90_ms": percentile(took, 0.9) * 1000,
            "start_cpu_p50_ms": percentile(cpu, 0.5) * 1000}


class Up:
    """`kubus up -f path` as a process of its own; the lines it prints, and who said it is ready."""

    def __init__(self, cluster: Cluster, path: Path, tree: Path):
        env = {**cluster.env, "KUBUS_LOG_LEVEL": "info", "KUBUS_SERVICE_CIDR": SERVICE_CIDR,
               "PYTHONPATH": str(tree), "KUBUS_GATEWAY_ADDRESS": f"127.0.0.1:{free_port()}",
               "KUBUS_DNS_ADDRESS": f"127.0.0.1:{free_port()}", "KUBUS_INGRESS_ADDRESS": f"127.0.0.1:{free_port()}"}
        self.gateway = env["KUBUS_GATEWAY_ADDRESS"]
        self.proc = subprocess.Popen([sys.executable, "-m", "cli.main", "up", "-f", str(path)], cwd=tree, env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
        self.lines: list[str] = []
        self.ready: set[str] = set()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line)
            label = line[1:line.index("]")] if line.startswith("[") and "]" in line else ""
            if any(marker in line for marker in READY):
                self.ready.add(label)

    def labels(self) -> set[str]:
        return {m.group(1) for line in list(self.lines) if (m := re.match(r"\[kubus\] started (\S+) ", line))}

    def pids(self, label: str) -> list[int]:
        return [int(m.group(1)) for line in list(self.lines)
                if (m := re.match(rf"\[kubus\] started {re.escape(label)} \(pid (\d+)\)", line))]

    def all_ready(self, count: int) -> bool:
        labels = self.labels()
        waiting = labels - self.ready - {"gateway"}
        return len(labels) == count and not waiting and ("gateway" not in labels or _listens(self.gateway))

    def stop(self) -> None:
        os.killpg(self.proc.pid, signal.SIGTERM)
        self.proc.wait(30)


def _listens(address: str) -> bool:
    host, port = address.rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=0.2).close()
        return True
    except OSError:
        return False


def cluster_up(tree: Path) -> dict[str, float]:
    path = ROOT / "config" / "cluster.yaml"
    spec = load_cluster(path)
    count = sum(a.instances for a in spec.actors) + len(spec.nodes)
    with Cluster("up") as cluster:
        bootstrap(cluster.base, spec, [])
        began = time.monotonic()
        up = Up(cluster, path, tree)
        try:
            wait_quickly(lambda: up.all_ready(count), 120, "every actor of the cluster file")
            ready_s = time.monotonic() - began
            time.sleep(2)  # the actors settle (caches loaded, first timers run) before memory is read
            pids = {pid for label in up.labels() for pid in up.pids(label)[-1:]}
            pids |= memory.warm_parents(pids)
            pss = sum(memory.pss_kib(pid) for pid in pids)
        finally:
            up.stop()
            _clean(cluster)
    return {"up_ready_s": ready_s, "up_processes": len(pids), "up_pss_mb": pss / 1024}


def _clean(cluster: Cluster) -> None:
    from actors.proxy import leftovers

    leftovers.clean(cluster.settings.cluster, SERVICE_CIDR)


def restarts(tree: Path) -> dict[str, float]:
    spec = {"actors": [{"name": "store", "module": "store"}, {"name": "apiserver", "module": "actors.apiserver"}]}
    out = {}
    with Cluster("restart") as cluster:
        path = Path(cluster.dir.name) / "cluster.yaml"
        path.write_text(yaml.safe_dump(spec))
        bootstrap(cluster.base, load_cluster(path), [])
        up = Up(cluster, path, tree)
        client = Client(cluster.settings, name="bench")
        try:
            wait_quickly(lambda: serving(client), 60, "the cluster to serve")
            for label in ("store", "apiserver"):
                killed = time.monotonic()
                os.kill(up.pids(label)[-1], signal.SIGKILL)
                wait_quickly(lambda: len(up.pids(label)) > 1 and serving(client), 60, f"a new {label}")
                out[f"{label}_serving_again_s"] = time.monotonic() - killed
        finally:
            client.close()
            up.stop()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose `kubus up` runs")
    args = parser.parse_args()
    print(result_line(**actor_starts(args.starts)), flush=True)
    print(result_line(**cluster_up(args.tree.resolve())), flush=True)
    print(result_line(**restarts(args.tree.resolve())), flush=True)


if __name__ == "__main__":
    main()
