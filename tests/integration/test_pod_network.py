"""Pods in network namespaces of their own (KUBUS_POD_NETWORK=namespaces; root): two nodes' pods on
the cluster's bridge, each with its address, a resolv.conf with Kubernetes' ClusterFirst config and
its own /etc/hosts; from a pod, `http://web/` (the search path, the cluster DNS on kube-dns's
10.96.0.10) spreads requests over every replica (the proxy's nftables rules DNAT them), the full
name answers too, and pods on another node answer directly; from the host, the ClusterIP and the
node port on a node's address answer; a deleted pod's namespace goes with it, and the proxy's table
with the proxy."""
from __future__ import annotations

import json
import subprocess

import pytest

from actors.kubelet import podnet
from tests.conftest import control_plane
from testkit.waiting import wait_until
from actors.proxy import nftables
from testkit.webserver import SERVICE, deployment, get, ready_pods
from testkit import cli

pytestmark = pytest.mark.skipif(not (podnet.available() and nftables.available()),
                                reason="pod network namespaces need root and `ip`, the proxy's rules `nft`")

CLIENT = ("import collections, json, os, sys, urllib.request\n"
          "print(open('/etc/resolv.conf').read().strip().replace('\\n', ' | '), flush=True)\n"
          "print([l for l in open('/etc/hosts').read().splitlines() if os.environ['POD_NAME'] in l], flush=True)\n"
          "def fetch(url):\n"
          "    with urllib.request.urlopen(url, timeout=5) as r: return r.read().decode()\n"
          "counts = collections.Counter(fetch(sys.argv[1]) for _ in range(300))\n"
          "print(json.dumps(counts), flush=True)\n"
          "print('direct', fetch(sys.argv[2]), flush=True)\n"
          "print('fqdn', fetch(sys.argv[3]).startswith('web-'), flush=True)\n"
          "import time; time.sleep(600)\n")


@pytest.fixture
def namespaced(procs, settings, tmp_path):
    client = control_plane(procs, settings)
    procs.start("actors.scheduler")
    for node in ("node-1", "node-2"):
        procs.start("actors.kubelet", "--node", node, label=f"kubelet-{node}", KUBUS_POD_NETWORK="namespaces")
    for name in ("nodeipam", "endpointslice", "replicaset", "deployment", "gc"):
        procs.start("actors.controllers", name, label=f"{name}-controller")
    procs.proxy = procs.start("actors.proxy", KUBUS_POD_NETWORK="namespaces")  # so its nftables mode
    wait_until(lambda: subprocess.run(["ip", "route", "show", "table", "local", settings.service_cidr],
                                      capture_output=True, text=True).stdout.strip(), 30, what="the service range")
    procs.start("actors.dns", KUBUS_DNS_ADDRESS="10.96.0.10:53")  # kube-dns's ClusterIP, local to the host
    wait_until(lambda: all(n["spec"].get("podCIDR") for n in client.list("Node").items)
               and len(client.list("Node").items) == 2, 30, what="two nodes with pod ranges")
    yield client
    client.close()


def logs(procs, pod: str) -> list[str]:
    out = cli.kubus("logs", pod, env=procs.env)
    return out.stdout.splitlines()


def test_pods_talk_through_their_own_namespaces(namespaced, procs, tmp_path, settings):
    namespaced.create(SERVICE)
    namespaced.create(deployment(3, str(tmp_path)))
    wait_until(lambda: len(ready_pods(namespaced)) == 3, 60, what="three ready replicas")
    web = {p["metadata"]["name"]: p for p in namespaced.list("Pod", "default", label_selector="app=web").items}
    other = next(p for p in web.values() if p["spec"]["nodeName"] == "node-2") if any(
        p["spec"]["nodeName"] == "node-2" for p in web.values()) else next(iter(web.values()))
    env = [{"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]
    namespaced.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "client"},
                       "spec": {"nodeName": "node-1", "containers": [{
                           "name": "client", "image": "python:3.11", "env": env,
                           "command": ["python3", "-c", CLIENT, "http://web/",
                                       f"http://{other['status']['podIP']}:8080/",
                                       "http://web.default.svc.cluster.local/"]}]}})
    lines = wait_until(lambda: (out := logs(procs, "client")) and len(out) >= 5 and out, 60,
                       what="the client pod's report")
    assert lines[0] == "search default.svc.cluster.local svc.cluster.local cluster.local | nameserver 10.96.0.10 " \
                       "| options ndots:5"
    client_ip = namespaced.get("Pod", "client")["status"]["podIP"]
    assert lines[1] == f"['{client_ip}\\tclient']"
    counts = json.loads(lines[2])
    assert set(counts) == set(web) and min(counts.values()) >= 60, counts
    assert lines[3] == f"direct {other['metadata']['name']}"
    assert lines[4] == "fqdn True"

    netns = podnet.PodNetwork(settings.cluster, settings.cluster_cidr, "", "").name(
        namespaced.get("Pod", "client")["metadata"]["uid"])
    assert netns in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    namespaced.delete("Pod", "client", grace_period=0)
    wait_until(lambda: netns not in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout,
               30, what="the client's namespace to go")


def test_the_host_reaches_the_service_through_the_proxys_rules(namespaced, procs, tmp_path, settings):
    service = namespaced.create(SERVICE)
    namespaced.create(deployment(3, str(tmp_path)))
    wait_until(lambda: len(ready_pods(namespaced)) == 3, 60, what="three ready replicas")
    table = nftables.table_name(settings.cluster)
    rule = f"ip daddr {service['spec']['clusterIP']} tcp dport 80 goto svc-"
    # the proxy writes the rule once the EndpointSlice has the ready pods: a step after they are ready
    wait_until(lambda: rule in subprocess.run(["nft", "list", "table", "ip", table], capture_output=True,
                                              text=True).stdout, 30, what="the service's rule in the proxy's table")
    names = set(ready_pods(namespaced))
    seen = wait_until(lambda: names <= (s := {get(service["spec"]["clusterIP"], 80)[1] for _ in range(60)}) and s,
                      30, what="every replica through the ClusterIP")
    assert seen == names
    gateway = podnet.gateway(namespaced.get("Node", "node-1")["spec"]["podCIDR"])
    assert get(gateway, service["spec"]["ports"][0]["nodePort"])[1] in names
    procs.proxy.terminate()
    procs.proxy.wait(10)
    assert subprocess.run(["nft", "list", "table", "ip", table], capture_output=True).returncode != 0
