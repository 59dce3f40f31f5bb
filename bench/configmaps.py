"""A ConfigMap edit to the new content of its file in a running pod, on a cri node.

    python -m bench.configmaps --edits 20 [--spacing 5]

Starts store, apiserver, scheduler, the node IPAM and serviceaccount controllers and one `cri` kubelet
(its own containerd, pulling from the local registry), runs a pod that mounts a ConfigMap, then edits
the ConfigMap `--edits` times, one at a time, each after a random pause of up to `--spacing` seconds
(an edit comes when its author makes it, not just after the kubelet's last fetch; 0: back to back,
each edit then just after a fetch, the worst case, a whole REFRESH_S). Each edit's clock runs from
the update's send until the mounted file holds the new value, read through the pod's volume on the
node (the very directory bind-mounted into the container: the `..data` swap is seen at once in
both); the container's own log is checked at the end to have seen the last value. Reports p50/p99
(issue 37's target: p50 ≤ 5 s; Kubernetes: up to the kubelet's sync period plus its cache TTL,
~60–90 s). Needs root and containerd.
"""
from __future__ import annotations

import argparse
import random
import time
import zlib
from pathlib import Path

from actors.kubelet import podnet
from actors.kubelet.cri import containerd
from bench.harness import Cluster, result_line, wait_for
from bench.startup import pct
from runtime import logs
from runtime.client import Client
from testkit.registry import session_registry

LOOP = "while true; do cat /cfg/value; echo; sleep 0.2; done"


def configmap(value: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "bench", "namespace": "default"},
            "data": {"value": value}}


def pod() -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "reader", "namespace": "default"},
            "spec": {"terminationGracePeriodSeconds": 1, "automountServiceAccountToken": False,
                     "volumes": [{"name": "cfg", "configMap": {"name": "bench"}}],
                     "containers": [{"name": "c", "image": "busybox:1.35", "command": ["sh", "-c", LOOP],
                                     "volumeMounts": [{"name": "cfg", "mountPath": "/cfg"}]}]}}


def run(edits: int, spacing: float) -> dict:
    with Cluster("cm") as cluster:
        cluster.env["KUBUS_CLUSTER_CIDR"] = f"10.{128 + zlib.crc32(cluster.settings.cluster.encode()) % 64}.0.0/16"
        home = Path(cluster.settings.data_dir) / "kubelet" / "node-1" / "cri"
        try:
            return _measure(cluster, edits, spacing)
        finally:
            cluster.stop()
            containerd.teardown(home)
            podnet.clean(cluster.settings.cluster)


def _measure(cluster: Cluster, edits: int, spacing: float) -> dict:
    registry = session_registry()
    for module in ("store", "actors.apiserver", "actors.scheduler"):
        cluster.start(module)
    cluster.start("actors.controllers", "nodeipam")
    cluster.start("actors.controllers", "serviceaccount")
    cluster.start("actors.kubelet", "--node", "node-1", "--runtime", "cri", KUBUS_REGISTRY_URL=registry)
    client = Client(cluster.settings, name="bench")
    wait_for(lambda: _ready(client), 120, "node-1 with its range, and the default account")
    current = client.create(configmap("v0"))
    uid = client.create(pod())["metadata"]["uid"]
    wait_for(lambda: (client.get("Pod", "reader", "default").get("status") or {}).get("phase") == "Running", 120,
             "the reader Running")
    mounted = Path(cluster.settings.data_dir) / "kubelet" / "node-1" / "pods" / uid / "volumes" / \
        "kubernetes.io~configmap" / "cfg" / "value"
    latencies = []
    for i in range(1, edits + 1):
        time.sleep(random.uniform(0, spacing))  # the author's moment (a bench's pause, not a test's wait)
        sent = time.monotonic()
        current = client.update({**current, "data": {"value": f"v{i}"}})
        wait_for(lambda: _read(mounted) == f"v{i}", 120, f"edit {i} in the mounted file")
        latencies.append(time.monotonic() - sent)
        print(f"edit {i:>3}: {latencies[-1]:.2f} s", flush=True)
    wait_for(lambda: f"v{edits}" in client.logs("reader", "default", tail=3)["text"], 10,
             "the container reading the last value")
    client.delete("Pod", "reader", "default")
    wait_for(lambda: not any(p["metadata"]["name"] == "reader" for p in client.list("Pod", "default").items), 60,
             "the reader gone")
    return {"edit_to_file_p50_s": pct(latencies, 50), "edit_to_file_p99_s": pct(latencies, 99),
            "edit_to_file_max_s": max(latencies), "edits": edits, "spacing_s": spacing}


def _ready(client: Client) -> bool:
    try:
        nodes = client.list("Node").items
        return bool(nodes and (nodes[0].get("spec") or {}).get("podCIDR") and client.get("ServiceAccount", "default",
                                                                                          "default"))
    except Exception:  # noqa: BLE001 - not serving, or not made yet
        return False


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--spacing", type=float, default=5.0, help="each edit after a random pause of up to this")
    args = parser.parse_args()
    why = containerd.available()
    if why:
        raise SystemExit(f"no cri node here: {why}")
    logs.configure("warning")
    result = run(args.edits, args.spacing)
    print(f"ConfigMap edit → file in the pod: p50 {result['edit_to_file_p50_s']:.2f} s, "
          f"p99 {result['edit_to_file_p99_s']:.2f} s over {args.edits} edits (spacing {args.spacing} s)")
    print(result_line(**result))


if __name__ == "__main__":
    main()
