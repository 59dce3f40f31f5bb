"""Pods on the CNI bridge reach a ClusterIP Service by name: the proxy's nftables rules DNAT (and
masquerade) the pods' traffic, the DNS actor answers on kube-dns's ClusterIP, which containerd wrote
into each sandbox's resolv.conf (ClusterFirst). A `web` Deployment of python http.server replicas,
and a busybox pod that fetches `http://web` and `http://web.default.svc.cluster.local`; a pod
fetches another pod's IP directly too.

The cluster has a service range and a pod range of its own: the host's routes and nftables rules
are shared by every cluster tests run at the same time."""
from __future__ import annotations

import subprocess

import pytest

from actors.proxy import nftables
from tests.integration.cri.served import service_range
from tests.integration.cri.test_cri_pods import container, pod, state
from testkit.waiting import wait_until
from testkit.webserver import SERVER, SERVICE, web_container

PYTHON = "kubus/python:3.11.2-bookworm"
pytestmark = pytest.mark.skipif(not nftables.available(), reason="the proxy's rules need `nft`")
# python, not busybox: the image's busybox is Debian's static build, whose wget segfaults resolving names
FETCH = ("import sys, time, urllib.request\n"
         "for url in sys.argv[1:]:\n"
         "    for attempt in range(30):\n"
         "        try:\n"
         "            print(urllib.request.urlopen(url, timeout=2).read().decode(), flush=True); break\n"
         "        except OSError as exc:\n"
         "            print('retry', url, exc, file=sys.stderr, flush=True); time.sleep(1)\n"
         "print('done', flush=True)\n")


@pytest.fixture
def own_services(procs, settings):
    """Before the cluster starts: a service range, and kube-dns's ClusterIP in it, of this cluster's own."""
    service_range(procs, settings)  # its proxy's route goes with the cluster (tests/conftest.py `stop`)
    return procs.env["KUBUS_CLUSTER_DNS"]


@pytest.fixture
def web(own_services, cri_cluster, procs, settings):
    for name in ("endpointslice", "replicaset", "deployment", "gc"):
        procs.start("actors.controllers", name, label=f"{name}-controller")
    procs.start("actors.proxy", KUBUS_PROXY_MODE="nftables")
    cidr = procs.env["KUBUS_SERVICE_CIDR"]
    wait_until(lambda: subprocess.run(["ip", "route", "show", "table", "local", cidr], capture_output=True,
                                      text=True).stdout.strip(), 30, what="the service range local to the host")
    procs.start("actors.dns", KUBUS_DNS_ADDRESS=f"{own_services}:53")
    server = web_container()
    server.update(image=PYTHON,
                  command=["python3", "-c", SERVER.replace("os.environ['POD_IP']", "'0.0.0.0'")])
    cri_cluster.create(SERVICE)
    cri_cluster.create({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                                 "template": {"metadata": {"labels": {"app": "web"}},
                                              "spec": {"containers": [server]}}}})
    ready = lambda: [p for p in cri_cluster.list("Pod", "default", label_selector="app=web").items
                     if all(c.get("ready") for c in p["status"].get("containerStatuses") or [{}])]
    return wait_until(lambda: len(ready()) == 2 and ready(), 90, what="two ready web replicas")


def test_a_pod_reaches_the_service_by_name_and_the_other_pods_by_ip(web, cri_cluster):
    names = {p["metadata"]["name"] for p in web}
    urls = ["http://web/", "http://web.default.svc.cluster.local/", f"http://{web[0]['status']['podIP']}:8080/"]
    client = pod("client", "", image=PYTHON)
    client["spec"]["containers"][0]["command"] = ["python3", "-c", FETCH, *urls]
    cri_cluster.create(client)
    wait_until(lambda: state(cri_cluster, "client", "terminated"), 120, what="the client to finish")
    lines = [line for line in cri_cluster.logs("client")["text"].splitlines() if not line.startswith("retry")]
    assert lines[-1] == "done" and len(lines) == 4, lines
    assert lines[0] in names and lines[1] in names, lines
    assert lines[2] == web[0]["metadata"]["name"], lines
    assert container(cri_cluster, "client")["state"]["terminated"]["exitCode"] == 0
