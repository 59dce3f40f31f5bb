"""A DaemonSet rolled over many hollow nodes: time to all pods up, then time to all updated.

    python -m bench.daemonset --nodes 1000 --max-unavailable 10%

Starts store, apiserver, scheduler, `--kubelets` hollow kubelet processes sharing `--nodes` simulated
nodes and the DaemonSet controller; creates a DaemonSet and waits until every node runs an
available pod (the rollout), then changes its image and waits until every node runs an updated,
available pod (the rolling update, within `--max-unavailable`). Reports both times and the CPU
milliseconds per node of the controller, the store and the apiserver. The last line is the
`name=value` result.
"""
from __future__ import annotations

import argparse
import time

from bench.harness import Cluster, CpuMeter, result_line, serving, wait_for
from runtime.client import Client


def daemonset(max_unavailable: str) -> dict:
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "bench", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "bench"}},
                     "updateStrategy": {"type": "RollingUpdate",
                                        "rollingUpdate": {"maxUnavailable": _int_or_percent(max_unavailable)}},
                     "template": {"metadata": {"labels": {"app": "bench"}},
                                  "spec": {"terminationGracePeriodSeconds": 0,
                                           "containers": [{"name": "c", "image": "agent:1"}]}}}}


def _int_or_percent(text: str) -> int | str:
    return text if text.endswith("%") else int(text)


def rolled_out(client: Client, nodes: int) -> bool:
    ds = client.get("DaemonSet", "bench", "default")
    status = ds.get("status") or {}
    return status.get("observedGeneration") == ds["metadata"]["generation"] and \
        status.get("desiredNumberScheduled") == nodes and status.get("updatedNumberScheduled") == nodes and \
        status.get("numberAvailable") == nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--kubelets", type=int, default=4, help="hollow kubelet processes sharing the nodes")
    parser.add_argument("--max-unavailable", default="10%", help="the rolling update's maxUnavailable")
    args = parser.parse_args()
    with Cluster("daemonset") as cluster:
        store, apiserver = cluster.start("store"), cluster.start("actors.apiserver")
        cluster.start("actors.scheduler")
        share = -(-args.nodes // args.kubelets)
        for i in range(args.kubelets):
            count = min(share, args.nodes - i * share)
            cluster.start("actors.kubelet", "--hollow", str(count), "--prefix", f"hollow{i}",
                          "--capacity", "cpu=8,memory=16Gi,pods=110")
        controller = cluster.start("actors.controllers", "daemonset")
        client = Client(cluster.settings, name="bench")
        wait_for(lambda: serving(client), 60, "the apiserver")
        wait_for(lambda: len(client.list("Node").items) == args.nodes, 300, f"{args.nodes} nodes")
        meter = CpuMeter({"ds_controller": controller.pid, "store": store.pid, "apiserver": apiserver.pid})
        started = time.monotonic()
        client.create(daemonset(args.max_unavailable))
        wait_for(lambda: rolled_out(client, args.nodes), 1200, "a pod on every node")
        created = time.monotonic() - started
        started = time.monotonic()
        client.patch("DaemonSet", "bench", {"spec": {"template": {"spec": {"containers": [
            {"name": "c", "image": "agent:2"}]}}}}, "default")
        wait_for(lambda: rolled_out(client, args.nodes), 1800, "every pod updated")
        updated = time.monotonic() - started
        print(result_line(nodes=args.nodes, max_unavailable=args.max_unavailable, created_s=created,
                          updated_s=updated, **meter.per(2 * args.nodes, "pod")))
        client.close()


if __name__ == "__main__":
    main()
