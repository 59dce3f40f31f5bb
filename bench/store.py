"""Durable CAS writes per second through apiserver and store, each write's event seen by a watcher.

    python -m bench.store --clients 64 --writes 20000 [--vs-etcd [--rounds 5]] [--vs-replicated]
    python -m bench.store --kind Secret --size 1024 [--vs-kind ConfigMap]

Each client owns one object (a Pod; or with --kind a ConfigMap or Secret whose value is --size long)
and updates it with its last resourceVersion as the precondition, one write in flight per client.
The clock stops when a watcher has seen every write's event. A Secret is encrypted at rest (and
decrypted for its event): --vs-kind runs the same load on another kind of the same size after it,
for the cost of that encryption.
"""
from __future__ import annotations

import argparse
import base64
import os
import threading
import time
from collections import Counter

from bench.harness import Cluster, CpuMeter, broker_pid, median, progress, result_line, serving, wait_for
from runtime import logs
from runtime.client import Client


def payload(i: int, kind: str = "Pod", size: int = 1024) -> dict:
    if kind != "Pod":
        return data_object(i, kind, size)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"bench-{i}", "namespace": "default",
                                                            "labels": {"app": "bench"}},
            "spec": {"containers": [{"name": "app", "image": "registry.example/bench:1.0",
                                     "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]}}


def data_object(i: int, kind: str, size: int) -> dict:
    """A ConfigMap or Secret whose one value is a string of `size` characters as sent (a Secret's: the
    base64 of 3/4 as many bytes), so the two weigh the same on the wire and only encryption differs."""
    value = ("x" * size) if kind == "ConfigMap" else base64.b64encode(b"x" * (size * 3 // 4)).decode()
    return {"apiVersion": "v1", "kind": kind, "metadata": {"name": f"bench-{i}", "namespace": "default",
                                                           "labels": {"app": "bench"}}, "data": {"value": value}}


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
        fut = self.client.request_async("update", obj["kind"], namespace="default", name=obj["metadata"]["name"],
                                        obj=obj, resource_version=obj["metadata"]["resourceVersion"], timeout=60)
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


class KubusLoad:
    """A cluster (store, apiserver) with `clients` Pods, each updated by CAS in a chain of its own, and
    a watcher; a round's clock stops when the watcher has seen every write of the round."""

    def __init__(self, clients: int, replicated: bool = False, kind: str = "Pod", size: int = 1024):
        self.cluster = Cluster("bench")
        self.kind, self.size = kind, size
        try:
            self._start(clients, replicated)
        except BaseException:
            self.cluster.__exit__(None, None, None)
            raise

    def _start(self, clients: int, replicated: bool) -> None:
        self.cluster.start("store", **({"KUBUS_STORE_REPLICATION": "stream"} if replicated else {}))
        self.cluster.start("actors.apiserver")
        self.writer = Client(self.cluster.settings, name="bench writer")
        self.watcher = Client(self.cluster.settings, name="bench watcher")
        wait_for(lambda: serving(self.writer), 30, "the cluster to answer")
        self.objects = [self.writer.create(payload(i, self.kind, self.size)) for i in range(clients)]
        self.seen = Seen()
        self.watcher.watch(self.kind, "default", handler=self.seen).wait_synced()
        store, apiserver = (proc.pid for proc in self.cluster.procs)
        self.cpu = CpuMeter({"broker": broker_pid(), "store": store, "apiserver": apiserver, "bench": os.getpid()})
        self.written, self.spent = 0, Counter()  # writes, and each process's CPU ms in the rounds

    def round(self, writes: int) -> float:
        """Writes per second of `writes` CAS updates (rounded down to a multiple of the clients)."""
        per = writes // len(self.objects)
        total, seen = per * len(self.objects), self.seen.count
        chains = Chains(self.writer, self.objects, per)
        self.cpu.start()
        started = time.monotonic()
        chains.start()
        wait_for(lambda: progress("kubus", self.seen.count - seen, total, started)
                 or self.seen.count - seen >= total or chains.failed, 600, "the watcher to see every write")
        if chains.failed:
            raise SystemExit(f"a write failed: {chains.failed[0]}")
        self.written += total
        self.spent.update(self.cpu.per(1, "write"))
        return total / (self.seen.last_at - started)

    def cpu_per_write(self) -> dict[str, float]:
        """Each process's CPU milliseconds per write, over this load's rounds (not etcd's, which the
        load generator's process runs too)."""
        return {name: ms / self.written for name, ms in self.spent.items()}

    def close(self) -> None:
        self.writer.close()
        self.watcher.close()
        self.cluster.__exit__(None, None, None)


def run_kubus(clients: int, writes: int, replicated: bool = False, kind: str = "Pod",
              size: int = 1024) -> tuple[float, dict[str, float]]:
    """Writes per second, and each process's CPU milliseconds per write (`replicated`: the store
    commits every batch through the WAL stream first)."""
    load = KubusLoad(clients, replicated, kind, size)
    try:
        return load.round(writes), load.cpu_per_write()
    finally:
        load.close()


def against_etcd(clients: int, writes: int, rounds: int) -> tuple[list[float], list[float], dict[str, float]]:
    """kubus and etcd, both up for the whole run, taking turns at `writes / rounds` writes each (who
    goes first swaps every round): a shared machine's speed moves by ±15% within minutes, and one run
    of each, one after the other, compared its moments rather than the two systems."""
    from bench.etcd import EtcdLoad

    kubus, etcd = KubusLoad(clients), None
    try:
        etcd = EtcdLoad(clients, payload(0))
        ours, theirs = [], []
        for r in range(rounds):
            for side in ((kubus, ours), (etcd, theirs))[::1 if r % 2 == 0 else -1]:
                side[1].append(side[0].round(max(clients, writes // rounds)))
        return ours, theirs, kubus.cpu_per_write()
    finally:
        kubus.close()
        if etcd is not None:
            etcd.close()


def against_kind(clients: int, writes: int, kinds: tuple[str, str], size: int, rounds: int) -> dict[str, list]:
    """Two clusters, one writing each kind (objects of the same size), taking turns as against_etcd does;
    each kind's writes per second by round, and its CPU milliseconds per write."""
    loads: list[KubusLoad] = []
    try:
        loads += [KubusLoad(clients, kind=kinds[0], size=size)]
        loads += [KubusLoad(clients, kind=kinds[1], size=size)]
        rates: dict[str, list] = {kind: [] for kind in kinds}
        for r in range(rounds):
            for load in loads[::1 if r % 2 == 0 else -1]:
                rates[load.kind].append(load.round(max(clients, writes // rounds)))
        return {**rates, **{f"{load.kind}_cpu": load.cpu_per_write() for load in loads}}
    finally:
        for load in loads:
            load.close()


def print_kinds(clients: int, writes: int, kinds: tuple[str, str], size: int, rounds: int) -> None:
    found = against_kind(clients, writes, kinds, size, rounds)
    first, second = (median(found[k]) for k in kinds)
    for kind in kinds:
        print(f"kubus  clients={clients:<3} kind={kind} size={size} cas_writes_per_s={median(found[kind]):,.0f} "
              + " ".join(f"{k}={v:.3f}" for k, v in found[f"{kind}_cpu"].items()), flush=True)
    store = (found[f"{kinds[0]}_cpu"]["store_cpu_ms_per_write"], found[f"{kinds[1]}_cpu"]["store_cpu_ms_per_write"])
    print(result_line(**{f"{k.lower()}_writes_per_s": median(found[k]) for k in kinds}, ratio=first / second,
                      store_ms_per_write_delta=store[0] - store[1], size=size, clients=clients, rounds=rounds))


def rounds_table(ours: list[float], theirs: list[float]) -> str:
    rows = [f"| {i + 1} | {k:,.0f} | {e:,.0f} | {k / e:.2f} |" for i, (k, e) in enumerate(zip(ours, theirs))]
    return "\n".join(["| round | kubus writes/s | etcd writes/s | ratio |", "|---|---|---|---|", *rows])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 64])
    parser.add_argument("--writes", type=int, default=5000, help="writes per run (split over the clients)")
    parser.add_argument("--vs-etcd", action="store_true",
                        help="run the same workload against a local etcd, the two taking turns (--rounds)")
    parser.add_argument("--rounds", type=int, default=5,
                        help="with --vs-etcd: turns each takes, the writes split between them (medians compared)")
    parser.add_argument("--vs-replicated", action="store_true",
                        help="also run it with the replicated store (KUBUS_STORE_REPLICATION=stream)")
    parser.add_argument("--kind", choices=("Pod", "ConfigMap", "Secret"), default="Pod",
                        help="what each client writes")
    parser.add_argument("--size", type=int, default=1024, help="with a ConfigMap or Secret: bytes of its data")
    parser.add_argument("--vs-kind", choices=("Pod", "ConfigMap", "Secret"),
                        help="the same load on this kind too, of the same size, the two taking turns (--rounds)")
    args = parser.parse_args()
    logs.configure("warning")
    if args.vs_kind:
        print_kinds(args.clients[-1], args.writes, (args.kind, args.vs_kind), args.size, args.rounds)
        return
    pairs = {}
    for clients in args.clients:
        writes = max(args.writes, clients)
        if args.vs_etcd:
            ours, theirs, cpu = against_etcd(clients, writes, args.rounds)
            rate, etcd_rate = median(ours), median(theirs)
            print(rounds_table(ours, theirs), flush=True)
        else:
            rate, cpu = run_kubus(clients, writes, kind=args.kind, size=args.size)
        print(f"kubus  clients={clients:<3} cas_writes_per_s={rate:,.0f} "
              + " ".join(f"{k}={v:.3f}" for k, v in cpu.items()), flush=True)
        pairs[f"cas_writes_per_s_c{clients}"] = rate
        if args.vs_replicated:
            replicated, cpu = run_kubus(clients, writes, replicated=True)
            print(f"kubus  clients={clients:<3} replicated cas_writes_per_s={replicated:,.0f} "
                  f"ratio={replicated / rate:.2f} " + " ".join(f"{k}={v:.3f}" for k, v in cpu.items()), flush=True)
            pairs[f"replicated_cas_writes_per_s_c{clients}"] = replicated
        if args.vs_etcd:
            ahead = sum(k > e for k, e in zip(ours, theirs))
            print(f"etcd   clients={clients:<3} cas_writes_per_s={etcd_rate:,.0f} ratio={rate / etcd_rate:.2f} "
                  f"(medians of {args.rounds} rounds; kubus ahead in {ahead})", flush=True)
            pairs[f"etcd_cas_writes_per_s_c{clients}"] = etcd_rate
            pairs[f"ratio_c{clients}"] = rate / etcd_rate
            pairs[f"rounds_ahead_c{clients}"] = ahead
    last = args.clients[-1]
    head = {"cas_writes_per_s": pairs[f"cas_writes_per_s_c{last}"]}
    if args.vs_etcd:
        head.update(etcd_cas_writes_per_s=pairs[f"etcd_cas_writes_per_s_c{last}"], ratio=pairs[f"ratio_c{last}"])
    print(result_line(**head, **{k: v for k, v in pairs.items()}))


if __name__ == "__main__":
    main()
