"""exec through the gateway into a real container (a cri node with its own containerd): the latency of
`kubectl exec POD -- true` (a whole kubectl run: discovery cached, the pod's GET, the WebSocket, the
bus session, the runtime's SPDY stream, the process), and of an echo round trip over one open exec
stream (`cat`: a line on stdin until it is back on stdout, through the gateway's WebSocket). For
scale: `kubectl get pod POD` (kubectl's own start and one GET), and an exec over the bus alone.

    python -m bench.exec --runs 30 --echoes 300

Targets (issue 36): `kubectl exec -- true` p50 <= 150 ms; an echo round trip p50 <= 20 ms.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import ssl
import subprocess
import time
from pathlib import Path

import aiohttp
import yaml

from actors.kubelet import podnet
from bench.gateway import connect, percentile
from bench.harness import Cluster, median, result_line, wait_for
from runtime import logs
from runtime.client import Client
from runtime.streams import exec_once
from testkit.hosts import free_port, remove_runtimes, unmount_all
from testkit.registry import session_registry

KUBECTL = os.path.join(os.path.dirname(os.path.realpath(shutil.which("kubectl") or "/usr/bin/kubectl")),
                       "kubectl.1.33")
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bench-exec"},
       "spec": {"terminationGracePeriodSeconds": 1,
                "containers": [{"name": "main", "image": "busybox:1.35", "command": ["sleep", "3600"]}]}}


def kubeconfig(folder: Path, url: str, ca: Path, token: str) -> Path:
    path = folder / "kubeconfig"
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "kubus",
        "clusters": [{"name": "kubus", "cluster": {"server": url, "certificate-authority": str(ca)}}],
        "users": [{"name": "me", "user": {"token": token}}],
        "contexts": [{"name": "kubus", "context": {"cluster": "kubus", "user": "me"}}]}))
    return path


def kubectl_runs(config: Path, cache: Path, runs: int, *args: str) -> list[float]:
    argv = [KUBECTL, f"--kubeconfig={config}", f"--cache-dir={cache}", *args]
    subprocess.run(argv, check=True, capture_output=True, timeout=60)  # discovery into the cache
    took = []
    for _ in range(runs):
        started = time.monotonic()
        subprocess.run(argv, check=True, capture_output=True, timeout=60)
        took.append(time.monotonic() - started)
    return took


async def echoes(url: str, context: ssl.SSLContext, token: str, count: int) -> list[float]:
    """Round trips of one line through `cat` over one v5 WebSocket exec stream."""
    query = "command=cat&stdin=true&stdout=true"
    path = f"/api/v1/namespaces/default/pods/{POD['metadata']['name']}/exec?{query}"
    took = []
    async with aiohttp.ClientSession(url, connector=aiohttp.TCPConnector(ssl=context),
                                     headers={"Authorization": f"Bearer {token}"}) as session:
        async with session.ws_connect(path, protocols=("v5.channel.k8s.io",)) as ws:
            for i in range(count + 1):
                line = f"echo {i}\n".encode()
                started, back = time.monotonic(), b""
                await ws.send_bytes(b"\x00" + line)
                while back != line:
                    message = await ws.receive()
                    if message.type == aiohttp.WSMsgType.BINARY and message.data[:1] == b"\x01":
                        back += message.data[1:]
                if i:  # the first wakes everything up
                    took.append(time.monotonic() - started)
            await ws.send_bytes(b"\xff\x00")
    return took


async def runs(client: Client, timeout: float) -> None:
    """Once an exec in the pod succeeds (its image pulled, its container started)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if (await exec_once(client, "default", POD["metadata"]["name"], ["true"])).exit_code == 0:
                return
        except Exception:  # not there yet: NotFound, not running, still pulling
            await asyncio.sleep(0.5)
    raise SystemExit("timed out waiting for the pod to run")


def figures(name: str, took: list[float]) -> dict[str, float]:
    return {f"{name}_p50_ms": median(took) * 1000, f"{name}_p99_ms": percentile(took, 0.99) * 1000}


async def measure(cluster: Cluster, url: str, args) -> dict[str, float]:
    context, token, client = connect(cluster, url, "bench exec")
    wait_for(lambda: bool(client.list("Node").items and (client.list("Node").items[0].get("spec") or {})
                          .get("podCIDR")), 60, "node-1 and its range")
    client.create(POD)

    await runs(client, 90)
    bus = []
    for _ in range(args.runs):
        started = time.monotonic()
        await exec_once(client, "default", "bench-exec", ["true"])
        bus.append(time.monotonic() - started)
    folder = Path(cluster.dir.name)
    config = kubeconfig(folder, url, cluster.base.gateway_tls_dir / "ca.crt", token)
    cache, name = folder / "cache", POD["metadata"]["name"]
    kubectl = await asyncio.to_thread(kubectl_runs, config, cache, args.runs, "exec", name, "--", "true")
    floor = await asyncio.to_thread(kubectl_runs, config, cache, args.runs, "get", "pod", name)
    echo = await echoes(url, context, token, args.echoes)
    client.close()
    return {**figures("kubectl_exec_true", kubectl), **figures("kubectl_get_pod", floor),
            **figures("bus_exec_true", bus), **figures("echo", echo)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--echoes", type=int, default=300)
    args = parser.parse_args()
    logs.configure("warning")
    port = free_port()
    url = f"https://127.0.0.1:{port}"
    registry = session_registry()
    with Cluster("execbench") as cluster:
        cluster.env["KUBUS_GATEWAY_ADDRESS"] = f"127.0.0.1:{port}"
        cluster.start("store")
        cluster.start("actors.apiserver")
        cluster.start("actors.scheduler")
        cluster.start("actors.controllers", "nodeipam")
        kubelet = cluster.start("actors.kubelet", "--node", "node-1", "--runtime", "cri", KUBUS_REGISTRY_URL=registry)
        cluster.start("actors.gateway")
        try:
            found = asyncio.run(measure(cluster, url, args))
        finally:  # the node's containerd and pod outlive its kubelet by design: they go with the run
            kubelet.terminate()
            kubelet.wait(60)
            remove_runtimes(cluster.settings.data_dir)
            unmount_all(cluster.settings.data_dir)
            podnet.clean(cluster.settings.cluster)
    print(result_line(runs=args.runs, echoes=args.echoes, **found))


if __name__ == "__main__":
    main()
