"""Hollow nodes: many simulated nodes in one process, each with its Node, Lease and pods."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from runtime.client import Client
from tests.conftest import control_plane
from testkit.waiting import wait_until


def _renewed(lease: dict) -> float:
    stamp = lease["spec"]["renewTime"]
    return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc).timestamp()


def _hollow(procs, settings, count: int) -> Client:
    client = control_plane(procs, settings)
    procs.start("actors.kubelet", "--hollow", str(count), "--capacity", "cpu=8,memory=16Gi,pods=110")
    return client


def test_simulated_pods_run_and_exit_as_annotated(procs, settings):
    client = _hollow(procs, settings, 3)
    procs.start("actors.scheduler")
    wait_until(lambda: len(client.list("Node").items) == 3, 30, what="three hollow nodes")
    notes = {"kubus.io/simulated-startup-seconds": "0.5", "kubus.io/simulated-run-seconds": "1",
             "kubus.io/simulated-exit-code": "3"}
    client.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "fake", "annotations": notes},
                   "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "anything:1"}]}})
    client.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "forever"},
                   "spec": {"containers": [{"name": "c", "image": "anything:1"}]}})
    wait_until(lambda: (client.get("Pod", "fake").get("status") or {}).get("phase") == "Failed", 30, what="Failed")
    term = client.get("Pod", "fake")["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (term["exitCode"], term["reason"]) == (3, "Error")
    wait_until(lambda: (client.get("Pod", "forever").get("status") or {}).get("phase") == "Running", 30,
               what="Running")
    client.close()


@pytest.mark.slow  # 30 s of watching at any size; test_kubelet covers one node's lease in the default run
@pytest.mark.parametrize("count", [pytest.param(1000, id="1000"), pytest.param(200, id="200")])
def test_hollow_nodes_keep_their_leases_on_time(procs, settings, count):
    client = _hollow(procs, settings, count)
    wait_until(lambda: len(client.list("Lease", "kube-node-lease").items) == count, 120, 1,
               what=f"{count} leases")
    worst = []
    for _ in range(3):  # three checks ten seconds apart: every lease renewed within its interval
        leases = client.list("Lease", "kube-node-lease").items
        now = datetime.now(timezone.utc).timestamp()
        worst.append(max(now - _renewed(lease) for lease in leases))
        wait_until(lambda: datetime.now(timezone.utc).timestamp() - now >= 10, 11, 0.5, what="ten seconds")
    assert max(worst) < 15, worst  # renewed every 10 s; Kubernetes calls a node lost after 50 s
    assert len(client.list("Node").items) == count
    client.close()
