"""Jobs from the command line on a process-runtime node (the Job's command runs as a host process):
kubectl 1.33 `create job`, `get jobs`, `wait --for=condition=complete` and `describe job` through the
gateway; then `kubus create job`, `kubus get jobs` and `kubus wait` over the bus."""
from __future__ import annotations

import os

import pytest

from tests.conftest import control_plane
from tests.e2e.conftest import running_gateway
from tests.e2e.test_kubectl import binary, kubectl_at, ok
from tests.integration.test_deployment import kubus
from testkit.people import token_of
from testkit.waiting import wait_until

pytestmark = pytest.mark.skipif(not os.path.exists(binary("1.33")), reason="no kubectl.1.33")


@pytest.fixture
def kube(procs, settings, tmp_path):
    """(a client, the gateway's URL, its CA): node-1 runs processes; the Job controller and the GC run."""
    client = control_plane(procs, settings)
    procs.start("actors.scheduler")
    procs.start("actors.kubelet", "--node", "node-1", label="kubelet")
    procs.start("actors.controllers", "job", label="job-controller")
    procs.start("actors.controllers", "gc", label="gc")
    wait_until(lambda: client.list("Node").items, 30, what="node-1")
    with running_gateway(procs, settings, tmp_path) as (url, ca):
        yield client, url, ca
    client.close()


def test_kubectl_create_get_wait_describe_job(kube, settings, tmp_path):
    client, url, ca = kube
    kubectl = kubectl_at("1.33", tmp_path, url, ca, token_of(settings, "admin"))
    assert ok(kubectl("create", "job", "hello", "--image=busybox:1.36", "--", "sh", "-c", "echo hi")).strip() == \
        "job.batch/hello created"
    header = ok(kubectl("get", "jobs")).splitlines()[0].split()
    assert header == ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]
    assert ok(kubectl("wait", "--for=condition=complete", "job/hello", "--timeout=60s")).strip() == \
        "job.batch/hello condition met"
    row = ok(kubectl("get", "jobs", "--no-headers")).split()
    assert row[:3] == ["hello", "Complete", "1/1"]
    assert "job.batch/hello" in ok(kubectl("get", "all"))  # jobs are in the `all` category
    status = ok(kubectl("get", "job", "hello", "--subresource=status", "-o", "jsonpath={.status.succeeded}"))
    assert status == "1"
    described = ok(kubectl("describe", "job", "hello"))
    assert "1 Active" not in described and "1 Succeeded" in described and "Completed" in described
    job = client.get("Job", "hello", "default")
    assert job["spec"]["template"]["spec"]["restartPolicy"] == "Never"
    assert job["status"]["succeeded"] == 1


def test_kubus_create_get_wait_job(kube, procs):
    made = kubus(procs, "create", "job", "sum", "--image=busybox:1.36", "--", "sh", "-c", "exit 0")
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip() == "job.batch/sum created"
    waited = kubus(procs, "wait", "--for=condition=complete", "job/sum", "--timeout=60s")
    assert waited.returncode == 0, waited.stderr
    assert waited.stdout.strip() == "job.batch/sum condition met"
    listed = kubus(procs, "get", "jobs")
    assert listed.stdout.splitlines()[0].split() == ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]
    assert listed.stdout.splitlines()[1].split()[:3] == ["sum", "Complete", "1/1"]
    described = kubus(procs, "describe", "job", "sum")
    assert "Pods Statuses:    0 Active (0 Ready) / 1 Succeeded / 0 Failed" in described.stdout
