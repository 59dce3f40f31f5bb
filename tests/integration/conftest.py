"""Fixtures shared by the workload tests: a cluster with scheduler, hollow kubelets and controllers."""
from __future__ import annotations

import pytest

from tests.conftest import control_plane
from tests.helpers import wait_until


@pytest.fixture
def node_cluster(procs, settings):
    """A store, an apiserver, the scheduler and one process-runtime kubelet (`procs.kubelet`), node-1."""
    client = control_plane(procs, settings)
    procs.start("actors.scheduler")
    procs.kubelet = procs.start("actors.kubelet", "--node", "node-1", label="kubelet")
    wait_until(lambda: client.get("Node", "node-1"), 30, what="the node to register")
    yield client
    client.close()


@pytest.fixture
def apps(procs, settings):
    client = control_plane(procs, settings)
    procs.start("actors.scheduler")
    procs.start("actors.kubelet", "--hollow", "4", "--capacity", "cpu=32,memory=64Gi,pods=110")
    procs.start("actors.controllers", "replicaset", label="rs-controller")
    procs.deployments = procs.start("actors.controllers", "deployment", label="deploy-controller")
    wait_until(lambda: len(client.list("Node").items) == 4, 30, what="four nodes")
    yield client
    client.close()
