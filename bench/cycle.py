"""One scheduling cycle's CPU, in process: the default profile's Framework over a NodeTable built as
the scheduler actor builds it, timing `schedule()` for a stream of small pods, each assumed on its
node afterwards as the actor does.

    python -m bench.cycle --nodes 5000 --placed 3000 --pods 3000
    python -m bench.cycle --shape owner      # Deployment pods: default spreading by their ReplicaSet

`--shape` gives every pod (placed and incoming) an `app` label and the constraints of one workload
kind (see SHAPES); the incoming pods are all `app=web`, the placed ones web, db and cache in turn.
The last line is `name=value` pairs. `--record FILE` writes the chosen node of every pod (one a
line) so that two versions of the scheduler can be compared decision by decision.
"""
from __future__ import annotations

import argparse
import copy
import random
import time

from actors.scheduler.framework import Context
from actors.scheduler.nodes import NodeTable
from actors.scheduler.podinfo import pod_info
from actors.scheduler.profiles import build_all
from bench.scheduler import node  # the nodes bench.scheduler registers
from config.scheduler import load_scheduler_config


def pod(i: int, cpu: str = "100m", memory: str = "128Mi", node_name: str = "") -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"pod-{i}", "namespace": "default", "uid": f"uid-{i}", "resourceVersion": "1"},
            "spec": {"containers": [{"name": "pause", "image": "registry.k8s.io/pause:3.10",
                                     "resources": {"requests": {"cpu": cpu, "memory": memory}}}],
                     "nodeName": node_name, "schedulerName": "default-scheduler"},
            "status": {"phase": "Running" if node_name else "Pending"}}


ZONE, HOST = "topology.kubernetes.io/zone", "kubernetes.io/hostname"
APPS = ("web", "db", "cache")


def _spread(key: str, when: str) -> dict:
    return {"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": when, "labelSelector": None}


def _term(key: str) -> dict:
    return {"topologyKey": key, "labelSelector": None}


# shape -> (metadata additions, spec additions); a None labelSelector becomes the pod's own app.
SHAPES: dict[str, tuple[dict, dict]] = {
    "plain": ({}, {}),
    "owner": ({"ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "",
                                    "controller": True}]}, {}),
    "spread-zone": ({}, {"topologySpreadConstraints": [_spread(ZONE, "DoNotSchedule")]}),
    "spread-host": ({}, {"topologySpreadConstraints": [_spread(HOST, "DoNotSchedule"),
                                                       _spread(ZONE, "ScheduleAnyway")]}),
    "spread-anyway": ({}, {"topologySpreadConstraints": [_spread(ZONE, "ScheduleAnyway"),
                                                         _spread(HOST, "ScheduleAnyway")]}),
    "anti-required": ({}, {"affinity": {"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [_term(HOST)]}}}),
    "anti-preferred": ({}, {"affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "podAffinityTerm": _term(HOST)}, {"weight": 10, "podAffinityTerm": _term(ZONE)}]}}}),
    "affinity": ({}, {"affinity": {"podAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [_term(ZONE)],
        "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 50, "podAffinityTerm": _term(HOST)}]}}}),
}


def shaped(manifest: dict, shape: str, app: str) -> dict:
    """`manifest` labelled `app` with the shape's constraints, selecting (or owned by the
    ReplicaSet of) its own app."""
    if shape == "plain":
        return manifest
    meta_extra, spec_extra = copy.deepcopy(SHAPES[shape])
    own = {"matchLabels": {"app": app}}
    for ref in meta_extra.get("ownerReferences", []):
        ref["name"] = f"{app}-rs"
    for c in spec_extra.get("topologySpreadConstraints", []):
        c["labelSelector"] = own
    for kind in (spec_extra.get("affinity") or {}).values():
        for terms in kind.values():
            for t in terms:
                t.get("podAffinityTerm", t)["labelSelector"] = own
    manifest["metadata"].update(meta_extra, labels={"app": app})
    manifest["spec"].update(spec_extra)
    return manifest


def replicaset(namespace: str, name: str) -> dict | None:
    """The informer's ReplicaSet: `<app>-rs` selects `app=<app>`."""
    app = name.removesuffix("-rs")
    return {"metadata": {"name": name, "namespace": namespace},
            "spec": {"selector": {"matchLabels": {"app": app}}}} if app in APPS else None


def build_table(nodes: int, placed: int, rng: random.Random, shape: str = "plain") -> NodeTable:
    """Nodes as the informer delivers them, then bound pods of assorted sizes on random nodes."""
    table = NodeTable()
    for i in range(nodes):
        table.upsert_node(node(i))
    for i in range(placed):
        name = f"node-{rng.randrange(nodes)}"
        info = pod_info(shaped(pod(10_000_000 + i, f"{rng.choice((100, 250, 500, 1000))}m",
                                   f"{rng.choice((128, 256, 512, 1024))}Mi", name), shape, APPS[i % len(APPS)]))
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
    parser.add_argument("--shape", choices=sorted(SHAPES), default="plain",
                        help="the pods' labels and constraints (default: none)")
    parser.add_argument("--record", help="write each pod's chosen node to this file")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    table = build_table(args.nodes, args.placed, rng, args.shape)
    framework = build_all(load_scheduler_config(), random.Random(args.seed))[args.profile]
    infos = [pod_info(shaped(pod(i), args.shape, "web")) for i in range(args.pods)]
    chosen: list[str] = []
    took: list[float] = []
    for info in infos:
        ctx = Context(info, table, extra={"replicaset": replicaset})
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
    print(f"shape={args.shape} nodes={args.nodes} placed={args.placed} pods={args.pods} "
          f"scheduled={sum(1 for c in chosen if c)} "
          f"cycle_us_p50={percentile(us, 50):.1f} cycle_us_p90={percentile(us, 90):.1f} "
          f"cycle_us_p99={percentile(us, 99):.1f} cycle_us_mean={sum(us) / len(us):.1f}")


if __name__ == "__main__":
    main()
