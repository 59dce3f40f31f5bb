"""Requests through the service proxy against straight to a pod, and how soon a pod that turns Ready
receives traffic, on one cluster of real processes (process runtime).

    python -m bench.networking --requests 3000 --concurrency 1 16 --trials 20 [--pod-network namespaces]

With the default pod network (the host's) the proxy forwards in userspace; with `namespaces` (root)
each pod has its own network namespace and the proxy's nftables rules DNAT to it.

requests/s: GETs, each on a new connection (a proxy picks its endpoint per connection), to one pod's
address and port, to the Service's ClusterIP (3 replicas behind it), and through the ingress actor
(an Ingress routing Host shop.example to the Service), from `concurrency` threads.
Ready to traffic: a replica's readiness is turned off and on again (`testkit.webserver`'s flag file);
the time runs from the moment a watch sees its Ready condition turn True to the first answer from it
through the ClusterIP (requests sent back to back meanwhile).
"""
from __future__ import annotations

import argparse
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from actors.kubelet import podnet
from actors.proxy import leftovers
from bench.harness import Cluster, median, result_line, serving, wait_for
from runtime import logs
from runtime.client import Client
from testkit.hosts import free_port, kill_containers
from testkit.webserver import REPLICAS, SERVICE, deployment, get, is_ready, ready_pods


INGRESS = {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "shop"},
           "spec": {"ingressClassName": "kubus", "rules": [{"host": "shop.example", "http": {"paths": [
               {"path": "/", "pathType": "Prefix",
                "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}]}}


NETWORKED = ("actors.kubelet", "actors.proxy")  # what the pod network changes


def start_cluster(cluster: Cluster, network: str) -> None:
    for module, args in (("store", ()), ("actors.apiserver", ()), ("actors.scheduler", ()),
                         ("actors.kubelet", ("--node", "node-1")), ("actors.proxy", ())):
        cluster.start(module, *args, **({"KUBUS_POD_NETWORK": network} if module in NETWORKED else {}))
    for name in ("nodeipam", "endpointslice", "replicaset", "deployment"):
        cluster.start("actors.controllers", name)


def rate(address: str, port: int, total: int, concurrency: int, host: str = "") -> float:
    """GETs per second, each on a new connection."""
    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        answers = list(pool.map(lambda _: get(address, port, host=host)[0], range(total)))
    assert all(a == 200 for a in answers), "a request failed"
    return total / (time.perf_counter() - started)


def ready_to_traffic(client: Client, flags: Path, ip: str, trials: int) -> list[float]:
    """Seconds from a watch seeing a pod turn Ready to its first answer through the ClusterIP."""
    became_ready: dict[str, float] = {}
    lock = threading.Lock()

    def seen(delta) -> None:
        ready = is_ready(delta.object)
        with lock:
            if ready and delta.object["metadata"]["name"] not in became_ready:
                became_ready[delta.object["metadata"]["name"]] = time.monotonic()
    watch = client.watch("Pod", "default", handler=seen)
    times = []
    for trial in range(trials):
        name = ready_pods(client)[trial % REPLICAS]
        (flags / name).touch()
        wait_for(lambda: name not in ready_pods(client), 30, f"{name} to turn unready")
        with lock:
            became_ready.pop(name, None)
        (flags / name).unlink()
        while True:
            answer = get(ip, 80)[1]
            with lock:
                if answer == name and name in became_ready:
                    times.append(time.monotonic() - became_ready[name])
                    break
        print(f"  trial {trial + 1}/{trials}: {times[-1] * 1000:.0f} ms", flush=True)
    watch.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 16])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--pod-network", choices=["host", "namespaces"], default="host")
    args = parser.parse_args()
    logs.configure("warning")
    flags = Path(tempfile.mkdtemp(prefix="kubus-bench-flags-"))
    with Cluster("bnet") as cluster:
        try:
            start_cluster(cluster, args.pod_network)
            client = Client(cluster.settings, name="bench")
            wait_for(lambda: serving(client), 30, "the apiserver")
            wait_for(lambda: (client.list("Node").items or [{}])[0].get("spec", {}).get("podCIDR"), 30, "a pod range")
            client.create(SERVICE)
            client.create(deployment(REPLICAS, str(flags)))
            client.create(INGRESS)
            ingress_port = free_port()
            cluster.start("actors.ingress", KUBUS_INGRESS_ADDRESS=f"127.0.0.1:{ingress_port}")
            wait_for(lambda: len(ready_pods(client)) == REPLICAS, 60, "three ready replicas")
            ip = client.get("Service", "web")["spec"]["clusterIP"]
            pod_ip = client.get("Pod", ready_pods(client)[0])["status"]["podIP"]
            wait_for(lambda: get(ip, 80)[0] == 200, 30, "the ClusterIP to answer")
            wait_for(lambda: get("127.0.0.1", ingress_port, host="shop.example")[0] == 200, 30, "the ingress to route")
            for concurrency in args.concurrency:
                direct = rate(pod_ip, 8080, args.requests, concurrency)
                proxied = rate(ip, 80, args.requests, concurrency)
                ingress = rate("127.0.0.1", ingress_port, args.requests, concurrency, host="shop.example")
                print(result_line(concurrency=concurrency, direct_rps=direct, proxied_rps=proxied, ingress_rps=ingress,
                                  proxied_ratio=proxied / direct, ingress_ratio=ingress / direct), flush=True)
            times = sorted(ready_to_traffic(client, flags, ip, args.trials))
            p99 = times[min(len(times) - 1, int(len(times) * 0.99))]
            print(result_line(pod_network=args.pod_network, trials=len(times), ready_to_traffic_p50_ms=median(times) * 1000,
                              ready_to_traffic_p99_ms=p99 * 1000, max_ms=times[-1] * 1000), flush=True)
            client.close()
        finally:  # the pods' processes, namespaces and rules go even when a step fails
            cluster.stop()
            kill_containers(cluster.settings.data_dir)
            podnet.clean(cluster.settings.cluster)
            leftovers.clean(cluster.settings.cluster, cluster.settings.service_cidr)


if __name__ == "__main__":
    main()
