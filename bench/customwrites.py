"""Custom-object writes against built-in kinds': durable CAS writes per second through apiserver and
store, as bench.store measures them, of a CRD's kind (`Gadget`, a structural schema with a default, an
enum and a bound, validated and defaulted on every write) and of Pods and ConfigMaps, in one cluster, taking turns.

    python -m bench.customwrites --clients 64 --writes 20000 --rounds 6

Each client owns one object and updates its labels with its last resourceVersion as the precondition,
one write in flight per client; a round's clock stops when a watcher has seen every write's event. The
kinds take turns at going first (a shared machine's speed moves within minutes); medians compared.
"""
from __future__ import annotations

import argparse
import time
from collections import Counter

from api import customkinds
from bench.harness import Cluster, CpuMeter, median, result_line, serving, wait_for
from bench.store import Chains, Seen, payload
from runtime import logs
from runtime.client import Client

GROUP = "bench.kubus.io"
SCHEMA = {"type": "object", "properties": {"spec": {"type": "object", "required": ["size"], "properties": {
    "size": {"type": "string", "enum": ["small", "large"]},
    "replicas": {"type": "integer", "minimum": 0, "maximum": 10, "default": 1},
    "image": {"type": "string"}}}}}
CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": f"gadgets.{GROUP}"},
       "spec": {"group": GROUP, "scope": "Namespaced",
                "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
                "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": SCHEMA}}]}}


def gadget(i: int) -> dict:
    return {"apiVersion": f"{GROUP}/v1", "kind": "Gadget",
            "metadata": {"name": f"bench-{i}", "namespace": "default", "labels": {"app": "bench"}},
            "spec": {"size": "small", "image": "registry.example/bench:1.0"}}


def configmap(i: int) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": f"bench-{i}", "namespace": "default", "labels": {"app": "bench"}},
            "data": {"size": "small", "image": "registry.example/bench:1.0"}}


class Load:
    """One kind's objects in the cluster, a watcher on them, and rounds of CAS writes."""

    def __init__(self, writer: Client, watcher: Client, kind: str, make, clients: int):
        self.writer, self.kind = writer, kind
        self.objects = [writer.create(make(i), "default") for i in range(clients)]
        self.seen = Seen()
        self.watch = watcher.watch(kind, "default", handler=self.seen)
        self.watch.wait_synced()

    def round(self, writes: int) -> tuple[float, int]:
        """Writes per second of about `writes` CAS updates (a multiple of the clients), and how many."""
        per = max(1, writes // len(self.objects))
        total, seen = per * len(self.objects), self.seen.count
        chains = Chains(self.writer, self.objects, per)
        started = time.monotonic()
        chains.start()
        wait_for(lambda: self.seen.count - seen >= total or chains.failed, 600, f"every {self.kind} write seen")
        if chains.failed:
            raise SystemExit(f"a {self.kind} write failed: {chains.failed[0]}")
        self.objects = chains.objects
        return total / (self.seen.last_at - started), total


def established(client: Client) -> bool:
    crd = client.get("CustomResourceDefinition", CRD["metadata"]["name"])
    return any(c.get("type") == "Established" and c.get("status") == "True"
               for c in (crd.get("status") or {}).get("conditions") or ())


def measure(cluster: Cluster, clients: int, writes: int, rounds: int) -> dict[str, float]:
    writer, watcher = Client(cluster.settings, name="bench writer"), Client(cluster.settings, name="bench watcher")
    wait_for(lambda: serving(writer), 30, "the cluster to answer")
    writer.create(CRD)
    wait_for(lambda: established(writer), 30, "the CRD Established")
    customkinds.observe(writer.get("CustomResourceDefinition", CRD["metadata"]["name"]))  # this process's watch keys
    loads = {"custom": Load(writer, watcher, "Gadget", gadget, clients), "pod": Load(writer, watcher, "Pod", payload, clients),
             "configmap": Load(writer, watcher, "ConfigMap", configmap, clients)}
    store, apiserver = (proc.pid for proc in cluster.procs[:2])
    rates, spent = take_turns(loads, CpuMeter({"store": store, "apiserver": apiserver}), writes // rounds, rounds)
    writer.close(), watcher.close()
    figures = {f"{name}_writes_per_s": median(values) for name, values in rates.items()}
    for builtin in ("pod", "configmap"):
        figures[f"custom_vs_{builtin}"] = figures["custom_writes_per_s"] / figures[f"{builtin}_writes_per_s"]
    figures.update({f"{name}_{k}": v for name, cpu_ms in spent.items() for k, v in cpu_ms.items()})
    return figures


def take_turns(loads: dict[str, Load], cpu: CpuMeter, writes: int, rounds: int):
    """Each kind's writes/s of every round, and its processes' CPU ms a write over the rounds; each kind
    goes first in turn."""
    rates: dict[str, list[float]] = {name: [] for name in loads}
    used: dict[str, Counter] = {name: Counter() for name in loads}
    done: Counter = Counter()
    for r in range(rounds):
        for name in list(loads)[r % len(loads):] + list(loads)[:r % len(loads)]:
            cpu.start()
            rate, total = loads[name].round(writes)
            rates[name].append(rate)
            used[name].update(cpu.used())
            done[name] += total
    spent = {name: {f"{k}_cpu_ms_per_write": 1000 * v / done[name] for k, v in used[name].items()} for name in loads}
    for name, values in rates.items():
        print(f"{name:>9}: " + " ".join(f"{v:,.0f}" for v in values) + f"  median {median(values):,.0f} writes/s  "
              + " ".join(f"{k}={v:.3f}" for k, v in spent[name].items()), flush=True)
    return rates, spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=64)
    parser.add_argument("--writes", type=int, default=12000, help="writes of each kind, split over the rounds")
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    logs.configure("warning")
    with Cluster("custombench") as cluster:
        cluster.start("store")
        cluster.start("actors.apiserver")
        cluster.start("actors.controllers", "crd")
        figures = measure(cluster, args.clients, args.writes, args.rounds)
    print(result_line(clients=args.clients, rounds=args.rounds, **figures))


if __name__ == "__main__":
    main()
