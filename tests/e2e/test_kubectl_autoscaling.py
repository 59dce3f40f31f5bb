"""Autoscaling from the command line on a hollow node sending its usage every second: kubectl 1.33 `top pods`,
`top nodes` (metrics.k8s.io through the gateway), `autoscale deployment`, `get hpa`'s columns and
`describe hpa`, and `kubus describe hpa`."""
from __future__ import annotations

import os

import pytest

from actors.kubelet.runtimes.simulated import CPU, MEMORY
from tests.conftest import control_plane
from tests.e2e.conftest import running_gateway
from tests.e2e.test_kubectl import binary, kubectl_at, ok
from tests.integration.test_deployment import kubus
from testkit.people import token_of
from testkit.waiting import wait_until

pytestmark = pytest.mark.skipif(not os.path.exists(binary("1.33")), reason="no kubectl.1.33")


@pytest.fixture
def kube(procs, settings, tmp_path):
    procs.env.update(KUBUS_METRICS_RESOLUTION_S="1", KUBUS_HPA_SYNC_PERIOD_S="1")
    client = control_plane(procs, settings)
    procs.start("actors.scheduler")
    procs.start("actors.kubelet", "--hollow", "1", "--capacity", "cpu=4,memory=8Gi,pods=110")
    for name in ("replicaset", "deployment", "hpa"):
        procs.start("actors.controllers", name, label=f"{name}-controller")
    procs.start("actors.metrics", label="metrics-server")
    wait_until(lambda: client.list("Node").items, 30, what="a node")
    with running_gateway(procs, settings, tmp_path) as (url, ca):
        yield client, url, ca
    client.close()


def web() -> dict:
    labels = {"app": "web"}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"replicas": 1, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels, "annotations": {CPU: "40m", MEMORY: "64Mi"}},
                                  "spec": {"containers": [{"name": "c", "image": "busybox", "resources": {
                                      "requests": {"cpu": "100m"}}}]}}}}


def test_kubectl_top_autoscale_and_get_hpa(kube, settings, tmp_path, procs):
    client, url, ca = kube
    kubectl = kubectl_at("1.33", tmp_path, url, ca, token_of(settings, "admin"))
    client.create(web())
    wait_until(lambda: client.list("PodMetrics", "default").items, 30, what="the pod's metrics")
    lines = ok(kubectl("top", "pods")).splitlines()
    assert lines[0].split() == ["NAME", "CPU(cores)", "MEMORY(bytes)"]
    name, cpu, memory = lines[1].split()
    assert name.startswith("web-") and 35 <= int(cpu.rstrip("m")) <= 45 and memory == "64Mi"
    nodes = wait_until(lambda: ok(kubectl("top", "nodes")).splitlines(), 30, what="kubectl top nodes")
    assert nodes[0].split() == ["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"]
    assert nodes[1].split()[1:] != ["<unknown>"] * 4
    made = ok(kubectl("autoscale", "deployment", "web", "--cpu-percent=50", "--min=1", "--max=5"))
    assert made.strip() == "horizontalpodautoscaler.autoscaling/web autoscaled"
    assert ok(kubectl("get", "hpa")).splitlines()[0].split() == ["NAME", "REFERENCE", "TARGETS", "MINPODS",
                                                                 "MAXPODS", "REPLICAS", "AGE"]
    row = wait_until(lambda: [r for r in [ok(kubectl("get", "hpa", "--no-headers")).split()] if "<unknown>/50%" not in
                              " ".join(r)], 30, what="the HPA's current utilization")[0]
    assert row[:2] == ["web", "Deployment/web"] and row[2:4] == ["cpu:", "40%/50%"] and row[4:7] == ["1", "5", "1"]
    described = ok(kubectl("describe", "hpa", "web"))
    assert "Reference:" in described and "Deployment/web" in described and "ValidMetricFound" in described
    listed = kubus(procs, "get", "hpa")
    assert listed.returncode == 0 and listed.stdout.split()[:7] == ["NAME", "REFERENCE", "TARGETS", "MINPODS",
                                                                    "MAXPODS", "REPLICAS", "AGE"], listed.stderr
    mine = kubus(procs, "describe", "hpa", "web")
    assert mine.returncode == 0, mine.stderr
    assert "resource cpu on pods  (as a percentage of request):  40% (40m) / 50%" in mine.stdout
