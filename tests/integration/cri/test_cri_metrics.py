"""Resource metrics from real containers: a busybox CPU burner limited to 200m, its cgroup's figures as
containerd reports them (ListContainerStats), kept by the metrics actor and read as its PodMetrics and its
node's NodeMetrics."""
from __future__ import annotations

import pytest

from api import quantity
from tests.integration.cri.test_cri_pods import pod, state
from testkit.waiting import wait_until


@pytest.fixture
def measured(procs, request):
    procs.env["KUBUS_METRICS_RESOLUTION_S"] = "1"
    client = request.getfixturevalue("cri_cluster")
    procs.start("actors.metrics", label="metrics-server")
    return client


def test_a_cpu_burner_is_reported_near_its_limit(measured):
    limits = {"cpu": "200m", "memory": "64Mi"}
    measured.create(pod("burner", "while :; do :; done", policy="Always", resources={"limits": limits}))
    wait_until(lambda: state(measured, "burner", "running"), 60, what="the burner running")

    def busy() -> dict | None:
        items = measured.list("PodMetrics", "default").items
        usage = items[0]["containers"][0]["usage"] if items else None
        return usage if usage and quantity.milli(usage["cpu"]) >= 100 else None
    usage = wait_until(busy, 30, what="the burner's cpu in its PodMetrics")
    assert quantity.milli(usage["cpu"]) <= 240, usage
    assert 0 < quantity.value(usage["memory"]) <= 64 << 20
    node = measured.get("NodeMetrics", "node-1")
    assert quantity.milli(node["usage"]["cpu"]) >= 100 and node["window"].endswith("s")
