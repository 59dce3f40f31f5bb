"""A store holding many pods: fill rate, RSS, load time from disk, a cold resync, write latency.

    python -m bench.scale --pods 100000 --nodes 5000 [--rate 500 --seconds 10]

Starts one store and one apiserver (nothing else: the pods never run), then
1. fill: creates N Nodes (plain objects) and M Pods bound at create (`spec.nodeName` set, spread
   round-robin over the nodes), `--inflight` requests outstanding over `--clients` Clients;
2. reports the store's RSS (VmRSS) and the size of its database files;
3. stops the store (SIGTERM), starts a new one and times the first `get` it answers (and its
   `store.active` log line, since the process was spawned);
4. cold resync of one cache of every pod: `Client.snapshot(["pod.#"])` on a new Client, then a new
   `watch("Pod").wait_synced()`, while a prober (a Client in a process of its own) sends `get`s of
   one pod at a fixed pace (open loop: a stall counts from when each get was due, not from when it
   went out);
5. write latency: `update`s (CAS on the resourceVersion the fill got back) of distinct pods at
   `--rate` per second for `--seconds`, open loop, on a Client of its own.
The last line is the `name=value` result.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from bench.harness import Cluster, CpuMeter, broker_pid, result_line, serving, wait_for
from bench.load import TIMEOUT_S, Filler, Paced, Prober, ok, pct, quiet_gc, why
from bus import codec
from runtime import logs
from runtime.client import Client

MIB = 1 << 20


def node(i: int) -> dict:
    name = f"node-{i}"
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                                                  "topology.kubernetes.io/zone": f"zone-{i % 3}"}},
            "spec": {},
            "status": {"capacity": {"cpu": "32", "memory": "128Gi", "pods": "110"},
                       "allocatable": {"cpu": "32", "memory": "128Gi", "pods": "110"},
                       "addresses": [{"type": "InternalIP", "address": f"10.{i >> 16 & 255}.{i >> 8 & 255}.{i & 255}"},
                                     {"type": "Hostname", "address": name}]}}


def pod(i: int, nodes: int, labels: dict | None = None) -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"scale-{i}", "namespace": "default",
                         "labels": {"app": f"app-{i % 100}", **(labels or {})}},
            "spec": {"nodeName": f"node-{i % nodes}",
                     "containers": [{"name": "app", "image": "registry.example/scale:1.0",
                                     "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}]}}


def rss_mib(pid: int) -> float:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def db_files(cluster: Cluster) -> dict[str, float]:
    """MiB of each of the store's database files (the database, its WAL, its shared-memory index)."""
    data = Path(cluster.settings.data_dir)
    return {p.name.rsplit("-", 1)[1] if p.name.endswith(("-wal", "-shm")) else "db": p.stat().st_size / MIB
            for p in sorted(data.glob(f"{cluster.settings.cluster}.store.db*"))}


def utc(at: float) -> str:
    """A wall-clock time as the logs print it (UTC), to find what else happened then."""
    return datetime.fromtimestamp(at, timezone.utc).strftime("%H:%M:%S.%f")[:-3] + "Z"


class GcPauses:
    """Seconds this process has spent in the cyclic garbage collector (a Python client's cost of
    receiving many objects: each full collection walks every object received so far)."""

    def __init__(self):
        self.total, self._began = 0.0, 0.0
        gc.callbacks.append(self._tick)

    def _tick(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.total += time.perf_counter() - self._began


def log_events(log: Path, event: str) -> list[dict]:
    """The events called `event` in a store's JSON log, each with `at`, its wall-clock time."""
    found = []
    try:
        lines = log.read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        if f'"{event}"' in line:
            try:
                entry = json.loads(line)
                entry["at"] = datetime.fromisoformat(entry["timestamp"].replace("Z", "+00:00")).timestamp()
            except (ValueError, KeyError):
                continue
            found.append(entry)
    return found


def cpu_used(meter: CpuMeter) -> str:
    """CPU seconds each process of `meter` used since its start()."""
    return " ".join(f"{name}={seconds:.2f}" for name, seconds in meter.used().items())


def start_store(cluster: Cluster) -> tuple[subprocess.Popen, Path, float]:
    """A store process logging at info (for its `store.active` line); its log file and spawn time."""
    log = Path(cluster.dir.name) / f"store.{len(cluster.procs)}.log"  # the harness's naming
    level, cluster.env["KUBUS_LOG_LEVEL"] = cluster.env["KUBUS_LOG_LEVEL"], "info"
    spawned = time.time()
    proc = cluster.start("store")
    cluster.env["KUBUS_LOG_LEVEL"] = level
    return proc, log, spawned


def fmt_ms(values: list[float]) -> str:
    return (f"n={len(values)} p50={pct(values, 50) * 1000:.1f}ms p99={pct(values, 99) * 1000:.1f}ms "
            f"max={max(values, default=float('nan')) * 1000:.1f}ms")


def run(args: argparse.Namespace) -> dict:
    out: dict = {"pods": args.pods, "nodes": args.nodes}
    with Cluster("scale", request_timeout_s=TIMEOUT_S) as cluster:
        cluster.env["KUBUS_REQUEST_TIMEOUT_S"] = str(TIMEOUT_S)  # the processes read settings from env
        store, store_log, _ = start_store(cluster)
        apiserver = cluster.start("actors.apiserver")
        clients = [Client(cluster.settings, name=f"bench scale {i}") for i in range(args.clients)]
        wait_for(lambda: serving(clients[0]), 60, "the cluster to answer")

        # 1. fill ------------------------------------------------------------------------------
        cpu = CpuMeter({"broker": broker_pid(), "store": store.pid, "apiserver": apiserver.pid, "bench": os.getpid()})
        filler = Filler(clients, args.inflight)
        profile = spy(args.py_spy, "fill", store.pid)
        cpu.start()
        node_s, _ = filler.run("nodes", node, args.nodes)
        pod_s, versions = filler.run("pods", lambda i: pod(i, args.nodes), args.pods)
        unspy(profile)
        total = args.nodes + args.pods
        per_create = cpu.per(total, "create")
        out.update(fill_per_s=total / (node_s + pod_s), fill_s=node_s + pod_s)
        out.update(per_create)
        print(f"fill    {args.nodes} nodes in {node_s:.1f}s ({args.nodes / node_s:,.0f}/s), {args.pods} bound pods in "
              f"{pod_s:.1f}s ({args.pods / pod_s:,.0f}/s); {args.inflight} in flight over {args.clients} clients; "
              f"CPU ms per create: " + " ".join(f"{k.split('_')[0]}={v:.3f}" for k, v in per_create.items()),
              flush=True)

        # 2. RSS and database size ---------------------------------------------------------------
        sample = clients[0].get("Pod", "scale-0", "default")
        files = db_files(cluster)
        out.update(store_rss_mib=rss_mib(store.pid), apiserver_rss_mib=rss_mib(apiserver.pid),
                   db_mib=sum(files.values()), pod_bytes=len(codec.encode(sample)))
        print(f"size    store VmRSS {out['store_rss_mib']:,.0f} MiB, apiserver VmRSS "
              f"{out['apiserver_rss_mib']:,.0f} MiB; database {out['db_mib']:,.1f} MiB (" + ", ".join(f"{k} {v:,.1f}" for k, v in files.items()) +
              f"); one stored pod is {out['pod_bytes']} bytes of msgpack", flush=True)

        # 3. load from disk ----------------------------------------------------------------------
        stopping = time.monotonic()
        store.send_signal(signal.SIGTERM)
        store.wait(120)
        out["stop_s"] = time.monotonic() - stopping
        store, store_log, spawned = start_store(cluster)
        t0 = time.monotonic()
        first = clients[0].request_async("get", "Pod", namespace="default", name="scale-0", timeout=TIMEOUT_S)
        profile = spy(args.py_spy, "load", store.pid, settle=0)  # misses the interpreter's first moments
        reply = first.result(TIMEOUT_S + 5)
        out["load_s"] = time.monotonic() - t0
        unspy(profile)
        if not ok(reply):
            raise SystemExit(f"the first get after the restart failed: {why(reply)}")
        active = (log_events(store_log, "store.active") or [{}])[0]
        if "at" in active:
            out["active_s"] = active["at"] - spawned
        out.update(store_rss_loaded_mib=rss_mib(store.pid))
        print(f"load    SIGTERM → exit {out['stop_s']:.2f}s; new store answered its first get {out['load_s']:.2f}s "
              f"after spawn (store.active at {out.get('active_s', float('nan')):.2f}s, "
              f"objects={active.get('objects')}, rev={active.get('rev')}); VmRSS after load "
              f"{out['store_rss_loaded_mib']:,.0f} MiB", flush=True)

        # 4. cold resync of one cache of every pod, gets meanwhile --------------------------------
        quiet_gc()
        prober = Prober(cluster.settings, args.get_rate)
        time.sleep(1.0)  # a baseline before the resync
        cold = Client(cluster.settings, name="bench scale resync")
        cold.apiservers()  # connected, reply consumer up: the clock measures the snapshot, not the connect
        profile = spy(args.py_spy, "resync", store.pid)
        pids = {"broker": broker_pid(), "store": store.pid, "apiserver": apiserver.pid, "bench": os.getpid()}
        cpu = CpuMeter(pids)
        pauses = GcPauses()
        snap_at = time.monotonic()
        snap = cold.snapshot(["pod.#"])
        snap_end = time.monotonic()
        snap_cpu = cpu_used(cpu)
        out.update(resync_s=snap_end - snap_at, resync_gc_s=pauses.total)
        snap_items, snap_rev = len(snap.items), snap.rev
        del snap
        if snap_items != args.pods:
            raise SystemExit(f"the snapshot holds {snap_items} pods, not {args.pods}")
        seen = [0]
        cpu.start()
        gc_before = pauses.total
        watch_at = time.monotonic()
        watch = cold.watch("Pod", handler=lambda d: seen.__setitem__(0, seen[0] + 1)).wait_synced(TIMEOUT_S)
        watch_end = time.monotonic()
        watch_cpu = cpu_used(cpu)
        out.update(watch_sync_s=watch_end - watch_at, watch_gc_s=pauses.total - gc_before)
        quiet_gc()
        gc.disable()  # the same snapshot again, this client's collector off: what the transport alone takes
        again_at = time.monotonic()
        again = cold.snapshot(["pod.#"])
        out["resync_nogc_s"] = time.monotonic() - again_at
        del again
        gc.enable()
        time.sleep(0.5)
        unspy(profile)
        prober.stop()
        during = prober.latencies(snap_at, snap_end)
        during_watch = prober.latencies(watch_at, watch_end)
        baseline = prober.latencies(0, snap_at)
        if not during:  # a snapshot shorter than the pace: the gets due right after it saw its effect
            during = prober.latencies(snap_at, snap_end + 1 / args.get_rate)
        out.update(get_p50_ms=pct(during, 50) * 1000, get_p99_ms=pct(during, 99) * 1000,
                   get_max_ms=max(during, default=float("nan")) * 1000,
                   watch_get_p99_ms=pct(during_watch, 99) * 1000, get_failures=prober.failures())
        print(f"resync  snapshot of {snap_items} pods (rev {snap_rev}) in {out['resync_s']:.2f}s (the bench's own GC "
              f"pauses {out['resync_gc_s']:.2f}s of it; again with its GC off: {out['resync_nogc_s']:.2f}s); a new "
              f"watch('Pod') synced {seen[0]} pods in {out['watch_sync_s']:.2f}s (GC {out['watch_gc_s']:.2f}s); "
              f"CPU s in the snapshot: {snap_cpu}; in the watch sync: {watch_cpu}", flush=True)
        print(f"        gets at {args.get_rate:g}/s, open loop: before {fmt_ms(baseline)} | during the snapshot "
              f"{fmt_ms(during)} | during the watch sync {fmt_ms(during_watch)} | failed {prober.failures()}"
              + (f" ({prober.errors[0]})" if prober.errors else ""), flush=True)
        watch.close()
        cold.close()
        del watch, cold
        quiet_gc()

        # 5. writes at a fixed rate ----------------------------------------------------------------
        writer = Client(cluster.settings, name="bench scale writer")
        writer.get("Pod", "scale-0", "default")
        count = min(int(args.rate * args.seconds), args.pods)

        def update(i: int):
            obj = pod(i, args.nodes, {"written": "1"})
            obj["metadata"]["resourceVersion"] = versions[i]
            return writer.request_async("update", "Pod", namespace="default", name=obj["metadata"]["name"], obj=obj,
                                        resource_version=versions[i], timeout=TIMEOUT_S)

        cpu = CpuMeter({"broker": broker_pid(), "store": store.pid, "apiserver": apiserver.pid, "bench": os.getpid()})
        profile = spy(args.py_spy, "write", store.pid)
        cpu.start()
        paced = Paced(update, args.rate, count)
        wall_at = time.time() - time.monotonic()  # monotonic → wall clock, to place the store's log lines
        paced.start()
        paced.join()
        sent_s = time.monotonic() - paced.started_at
        paced.stop()
        unspy(profile)
        lat = paced.latencies()
        since = wall_at + paced.started_at
        worst = sorted(paced.samples, key=lambda s: -s[1])[:3]
        compactions = [f"+{e['at'] - since:.1f}s" for e in log_events(store_log, "store.compacted")
                       if since <= e["at"] <= since + sent_s + 2]
        per_write = cpu.per(count, "write")
        out.update(write_p50_ms=pct(lat, 50) * 1000, write_p99_ms=pct(lat, 99) * 1000,
                   write_max_ms=max(lat, default=float("nan")) * 1000, write_failures=paced.failures(),
                   write_rate=args.rate)
        print(f"write   {count} CAS updates at {args.rate:g}/s, open loop (sent in {sent_s:.1f}s): {fmt_ms(lat)}, "
              f"failed {paced.failures()}" + (f" ({paced.errors[0]})" if paced.errors else "") +
              "; CPU ms per write: " + " ".join(f"{k.split('_')[0]}={v:.3f}" for k, v in per_write.items()),
              flush=True)
        print("        slowest writes were due at " + ", ".join(
            f"+{d - paced.started_at:.2f}s ({l * 1000:.0f}ms, {utc(wall_at + d)})" for d, l, _ in worst) +
              f"; store.compacted (log rows dropped) in the phase: {', '.join(compactions) or 'none'}", flush=True)
        writer.close()
        for client in clients:
            client.close()
    return out


def spy(folder: str | None, phase: str, pid: int, settle: float = 1.0) -> subprocess.Popen | None:
    """When asked to: py-spy recording the store (without pausing it, threads apart, idle time left out)
    into `folder/phase.txt` (collapsed stacks, for flamegraph.pl or speedscope) until unspy()."""
    if not folder:
        return None
    Path(folder).mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen([str(Path(sys.executable).parent / "py-spy"), "record", "--nonblocking", "--threads",
                             "-r", "100", "-f", "raw", "-o", str(Path(folder) / f"{phase}.txt"), "-p", str(pid)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(settle)  # attached before the clock starts
    return proc


def unspy(proc: subprocess.Popen | None) -> None:
    if proc is not None:
        proc.send_signal(signal.SIGINT)
        proc.wait(60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pods", type=int, default=100_000)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--rate", type=float, default=500, help="writes per second in the write-latency phase")
    parser.add_argument("--seconds", type=float, default=10, help="length of the write-latency phase")
    parser.add_argument("--get-rate", type=float, default=100, help="the prober's gets per second during the resync")
    parser.add_argument("--inflight", type=int, default=256, help="creates outstanding during the fill")
    parser.add_argument("--clients", type=int, default=4, help="Clients the fill spreads over")
    parser.add_argument("--py-spy", metavar="DIR", help="record the store with py-spy in each phase, to "
                                                        "DIR/{fill,load,resync,write}.txt (collapsed stacks)")
    args = parser.parse_args()
    logs.configure("warning")
    print(result_line(**run(args)))


if __name__ == "__main__":
    main()
