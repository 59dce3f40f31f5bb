"""A Job of many completions on hollow nodes: time to Complete against the ideal, and the Job
controller's CPU per pod.

    python -m bench.jobs --completions 1000 --parallelism 100 --nodes 50 --run 2

Starts store, apiserver, scheduler, one hollow kubelet process of `--nodes` simulated nodes and the
Job controller; creates one Job whose pods run `--run` seconds and exit 0 (the simulated runtime's
annotations), and waits for its Complete condition. Ideal: completions × run / parallelism. Reports
the ratio to the ideal (the issue asks <= 2) and the CPU milliseconds per pod of the Job controller,
the store and the apiserver. The last line is the `name=value` result.
"""
from __future__ import annotations

import argparse
import time

from bench.harness import Cluster, CpuMeter, result_line, serving, wait_for
from runtime.client import Client


def job(completions: int, parallelism: int, run: float) -> dict:
    notes = {"kubus.io/simulated-run-seconds": str(run), "kubus.io/simulated-exit-code": "0"}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "bench", "namespace": "default"},
            "spec": {"completions": completions, "parallelism": parallelism,
                     "template": {"metadata": {"annotations": notes},
                                  "spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
                                           "containers": [{"name": "c", "image": "busybox"}]}}}}


def complete(client: Client) -> bool:
    conditions = (client.get("Job", "bench", "default").get("status") or {}).get("conditions") or []
    return any(c["type"] in ("Complete", "Failed") and c["status"] == "True" for c in conditions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--completions", type=int, default=1000)
    parser.add_argument("--parallelism", type=int, default=100)
    parser.add_argument("--nodes", type=int, default=50)
    parser.add_argument("--run", type=float, default=2.0, help="seconds each pod runs")
    args = parser.parse_args()
    with Cluster("jobs") as cluster:
        store, apiserver = cluster.start("store"), cluster.start("actors.apiserver")
        cluster.start("actors.scheduler")
        cluster.start("actors.kubelet", "--hollow", str(args.nodes), "--capacity", "cpu=64,memory=256Gi,pods=250")
        controller = cluster.start("actors.controllers", "job")
        client = Client(cluster.settings, name="bench")
        wait_for(lambda: serving(client), 60, "the apiserver")
        wait_for(lambda: len(client.list("Node").items) == args.nodes, 120, f"{args.nodes} nodes")
        meter = CpuMeter({"job_controller": controller.pid, "store": store.pid, "apiserver": apiserver.pid})
        started = time.monotonic()
        client.create(job(args.completions, args.parallelism, args.run))
        wait_for(lambda: complete(client), max(600.0, 20 * args.completions * args.run / args.parallelism),
                 "the Job to finish")
        took = time.monotonic() - started
        status = client.get("Job", "bench", "default")["status"]
        ideal = args.completions * args.run / args.parallelism
        print(result_line(completions=args.completions, parallelism=args.parallelism, nodes=args.nodes,
                          succeeded=status.get("succeeded", 0), failed=status.get("failed", 0), seconds=took,
                          ideal_s=ideal, ratio=took / ideal, **meter.per(args.completions, "pod")))
        client.close()


if __name__ == "__main__":
    main()
