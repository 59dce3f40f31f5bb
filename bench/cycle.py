"""One scheduling cycle's CPU, in process: the default profile's Framework over a NodeTable built as
the scheduler actor builds it, timing `schedule()` for a stream of small pods, each assumed on its
node afterwards as the actor does.

    python -m bench.cycle --nodes 5000 --placed 3000 --pods 3000

The last line is `name=value` pairs. `--record FILE` writes the chosen node of every pod (one a
line) so that two versions of the scheduler can be compared decision by decision.
"""
from __future__ import annotations

import argparse
import random
import time

from actors.scheduler.framework import Context
from actors.scheduler.nodes import NodeTable
from actors.scheduler.podinfo import pod_info
from actors.scheduler.profiles import build_all
from config.scheduler import load_scheduler_config


def node(i: int) -> dict:
    name = f"node-{i}"
    alloc = {"cpu": "32", "memory": "128Gi", "pods": "110"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                  "topology.kubernetes.io/zone": f"zone-{i % 3}"}},
            "spec": {}, "status": {"capacity": alloc, "allocatable": alloc}}


def pod(i: int, cpu: str = "100m", memory: str = "128Mi", node_name: str = "") -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"pod-{i}", "namespace": "default", "uid": f"uid-{i}", "resourceVersion": "1"},
            "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                     "resources": {"requests": {"cpu": cpu, "memory": memory}}}],
                     "nodeName": node_name, "schedulerName": "default-scheduler"},
            "status": {"phase": "Running" if node_name else "Pending"}}


def build_table(nodes: int, placed: int, rng: random.Random) -> NodeTable:
    """Nodes as the informer delivers them, then bound pods of assorted sizes on random nodes."""
    table = NodeTable()
    for i in range(nodes):
        table.upsert_node(node(i))
    for i in range(placed):
        name = f"node-{rng.randrange(nodes)}"
        info = pod_info(pod(10_000_000 + i, f"{rng.choice((100, 250, 500, 1000))}m",
                            f"{rng.choice((128, 256, 512, 1024))}Mi", name))
        table.add_pod(info, name)
    return table


def percentile(ascending: list[float], pct: float) -> float:
    return ascending[min(len(ascending) - 1, int(len(ascending) * pct / 100))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--placed", type=int, default=3000)
    parser.add_argument("--pods", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", default="default-scheduler")
    parser.add_argument("--record", help="write each pod's chosen node to this file")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    table = build_table(args.nodes, args.placed, rng)
    framework = build_all(load_scheduler_config(), random.Random(args.seed))[args.profile]
    infos = [pod_info(pod(i)) for i in range(args.pods)]
    chosen: list[str] = []
    took: list[float] = []
    for info in infos:
        ctx = Context(info, table, extra={"replicaset": lambda _ns, _name: None})
        started = time.perf_counter()
        decision = framework.schedule(ctx)
        took.append(time.perf_counter() - started)
        chosen.append(decision.node or "")
        if decision.node is not None:
            table.add_pod(info, decision.node)  # assumed, as Scheduler._assume_and_bind does
    if args.record:
        with open(args.record, "w") as out:
            out.write("\n".join(chosen) + "\n")
    took.sort()
    us = [t * 1e6 for t in took]
    print(f"nodes={args.nodes} placed={args.placed} pods={args.pods} scheduled={sum(1 for c in chosen if c)} "
          f"cycle_us_p50={percentile(us, 50):.1f} cycle_us_p90={percentile(us, 90):.1f} "
          f"cycle_us_p99={percentile(us, 99):.1f} cycle_us_mean={sum(us) / len(us):.1f}")


if __name__ == "__main__":
    main()
