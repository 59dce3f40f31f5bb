"""kubectl (1.33) through the gateway on the networking half: a Deployment of a small HTTP server,
`kubectl expose`, `get services,endpointslices,endpoints`, `describe service` with its endpoints, and
the ClusterIP answering through the proxy actor."""
from __future__ import annotations

import shutil

import pytest

from tests.conftest import control_plane
from testkit.people import token_of
from tests.e2e.conftest import kubectl_for, running_gateway
from testkit.waiting import wait_until
from testkit.webserver import get, web_container

pytestmark = pytest.mark.skipif(shutil.which("kubectl") is None, reason="no kubectl on the PATH")


@pytest.fixture
def kube(procs, settings, tmp_path):
    client = control_plane(procs, settings)
    procs.start("actors.scheduler")
    procs.start("actors.kubelet", "--node", "node-1", label="kubelet")
    for name in ("nodeipam", "endpointslice", "endpoints", "replicaset", "deployment"):
        procs.start("actors.controllers", name, label=f"{name}-controller")
    procs.start("actors.proxy")
    wait_until(lambda: (client.list("Node").items or [{}])[0].get("spec", {}).get("podCIDR"), 30, what="node-1")
    with running_gateway(procs, settings, tmp_path) as (url, ca):
        yield client, kubectl_for(tmp_path, url, ca, token_of(settings, "admin"))
    client.close()


def ok(result) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_expose_describe_and_reach_a_deployment(kube):
    client, kubectl = kube
    labels = {"app": "web"}
    client.create({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                   "spec": {"replicas": 2, "selector": {"matchLabels": labels},
                            "template": {"metadata": {"labels": labels}, "spec": {"containers": [web_container()]}}}})
    assert ok(kubectl("expose", "deployment", "web", "--port=80", "--target-port=http")).strip() == \
        "service/web exposed"
    ip = client.get("Service", "web")["spec"]["clusterIP"]
    wait_until(lambda: get(ip, 80)[0] == 200, 60, what="the ClusterIP to answer")

    services = ok(kubectl("get", "services", "-o", "wide")).splitlines()
    assert services[0].split() == ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"]
    web = next(line.split() for line in services if line.startswith("web "))
    assert web[1:5] == ["ClusterIP", ip, "<none>", "80/TCP"] and web[6] == "app=web"

    def both_replicas() -> bool:  # the two controllers follow the pods each at its own pace
        slices = ok(kubectl("get", "endpointslices", "-l", "kubernetes.io/service-name=web")).splitlines()
        endpoints = ok(kubectl("get", "endpoints", "web")).splitlines()
        return slices[1].split()[3].count(",") == 1 and endpoints[1].split()[1].count(":8080") == 2
    wait_until(both_replicas, 30, 0.5, what="both replicas in the EndpointSlice and the Endpoints")
    slices = ok(kubectl("get", "endpointslices", "-l", "kubernetes.io/service-name=web")).splitlines()
    assert slices[0].split() == ["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"]
    assert slices[1].split()[1:3] == ["IPv4", "8080"]

    described = ok(kubectl("describe", "service", "web"))
    rows = {line.split(":", 1)[0]: line.split(":", 1)[1].strip() for line in described.splitlines() if ":" in line}
    assert (rows["Selector"], rows["Type"], rows["IP"], rows["TargetPort"]) == ("app=web", "ClusterIP", ip,
                                                                                "http/TCP")
    assert rows["Endpoints"].count(":8080") == 2
