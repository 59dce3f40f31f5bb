"""Durable CAS writes per second through apiserver and store, each write's event seen by a watcher.

    python bench/store.py --clients 64 --writes 20000 [--vs-etcd] [--vs-replicated]

Each client owns one Pod and updates it with its last resourceVersion as the precondition, one
write in flight per client. The clock stops when a watcher has seen every write's event.
"""
from __future__ import annotations

import argparse
import os
import threading
import time

from bench.harness import Cluster, CpuMeter, broker_pid, progress, result_line, serving, wait_for
from runtime import logs
from runtime.client import Client


def payload(i: int) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"bench-{i}", "namespace": "default",
                                                            "labels": {"app": "bench"}},
            "spec": {"containers": [{"name": "app", "image": "registry.example/bench:1.0",
                                     "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}}


class Chains:
    """`clients` chains of CAS updates, each sending its next write from the previous reply."""

    def __init__(self, client: Client, objects: list[dict], per_client: int):
        self.client, self.objects, self.per = client, objects, per_client
        self.done = 0
        self.failed: list = []
        self.finished = threading.Event()

    def start(self) -> None:
        for i in range(len(self.objects)):
            self._send(i, 0)

    def _send(self, i: int, n: int) -> None:
        obj = self.objects[i]
        obj["metadata"]["labels"]["n"] = str(n)
        fut = self.client.request_async("update", "Pod", namespace="default", name=obj["metadata"]["name"], obj=obj,
                                        resource_version=obj["metadata"]["resourceVersion"], timeout=60)
        fut.add_done_callback(lambda f: self._on_reply(i, n, f.result()))

    def _on_reply(self, i: int, n: int, reply) -> None:
        if not isinstance(reply, dict) or not reply.get("ok"):
            self.failed.append(reply)
            self.finished.set()
            return
        self.objects[i] = reply["object"]
        self.done += 1
        if n + 1 < self.per:
            self._send(i, n + 1)


class Seen:
    """The watcher's handler: counts MODIFIED events and when the last one came."""

    def __init__(self):
        self.count = 0
        self.last_at = 0.0

    def __call__(self, delta) -> None:
        if delta.type == "MODIFIED":
            self.count += 1
            self.last_at = time.monotonic()


def run_kubus(clients: int, writes: int, replicated: bool = False) -> tuple[float, dict[str, float]]:
    """Writes per second, and each process's CPU milliseconds per write (`replicated`: the store
    commits every batch through the WAL stream first)."""
    with Cluster("bench") as cluster:
        cluster.start("store", **({"KUBUS_STORE_REPLICATION": "stream"} if replicated else {}))
        cluster.start("actors.apiserver")
        writer = Client(cluster.settings, name="bench writer")
        watcher = Client(cluster.settings, name="bench watcher")
        wait_for(lambda: serving(writer), 30, "the cluster to answer")
        objects = [writer.create(payload(i)) for i in range(clients)]
        seen = Seen()
        watcher.watch("Pod", "default", handler=seen).wait_synced()
        per = writes // clients
        chains = Chains(writer, objects, per)
        store, apiserver = (proc.pid for proc in cluster.procs)
        cpu = CpuMeter({"broker": broker_pid(), "store": store, "apiserver": apiserver, "bench": os.getpid()})
        started = time.monotonic()
        chains.start()
        total = per * clients
        wait_for(lambda: progress("kubus", seen.count, total, started) or seen.count >= total or chains.failed,
                 600, "the watcher to see every write")
        if chains.failed:
            raise SystemExit(f"a write failed: {chains.failed[0]}")
        rate = total / (seen.last_at - started)
        writer.close()
        watcher.close()
        return rate, cpu.per(total, "write")



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 64])
    parser.add_argument("--writes", type=int, default=5000, help="writes per run (split over the clients)")
    parser.add_argument("--vs-etcd", action="store_true", help="run the same workload against a local etcd")
    parser.add_argument("--vs-replicated", action="store_true",
                        help="also run it with the replicated store (KUBUS_STORE_REPLICATION=stream)")
    args = parser.parse_args()
    logs.configure("warning")
    pairs = {}
    for clients in args.clients:
        writes = max(args.writes, clients)
        rate, cpu = run_kubus(clients, writes)
        print(f"kubus  clients={clients:<3} cas_writes_per_s={rate:,.0f} "
              + " ".join(f"{k}={v:.3f}" for k, v in cpu.items()), flush=True)
        pairs[f"cas_writes_per_s_c{clients}"] = rate
        if args.vs_replicated:
            replicated, cpu = run_kubus(clients, writes, replicated=True)
            print(f"kubus  clients={clients:<3} replicated cas_writes_per_s={replicated:,.0f} "
                  f"ratio={replicated / rate:.2f} " + " ".join(f"{k}={v:.3f}" for k, v in cpu.items()), flush=True)
            pairs[f"replicated_cas_writes_per_s_c{clients}"] = replicated
        if args.vs_etcd:
            from bench.etcd import run_etcd

            etcd_rate = run_etcd(clients, writes, payload(0))
            print(f"etcd   clients={clients:<3} cas_writes_per_s={etcd_rate:,.0f} ratio={rate / etcd_rate:.2f}",
                  flush=True)
            pairs[f"etcd_cas_writes_per_s_c{clients}"] = etcd_rate
            pairs[f"ratio_c{clients}"] = rate / etcd_rate
    last = args.clients[-1]
    head = {"cas_writes_per_s": pairs[f"cas_writes_per_s_c{last}"]}
    if args.vs_etcd:
        head.update(etcd_cas_writes_per_s=pairs[f"etcd_cas_writes_per_s_c{last}"], ratio=pairs[f"ratio_c{last}"])
    print(result_line(**head, **{k: v for k, v in pairs.items()}))


if __name__ == "__main__":
    main()
