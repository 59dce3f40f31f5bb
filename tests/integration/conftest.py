"""Fixtures shared by the workload tests: a cluster with scheduler, hollow kubelets and controllers."""
from __future__ import annotations

import pytest

from tests.conftest import control_plane
from tests.helpers import wait_until


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
