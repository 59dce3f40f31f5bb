"""A cluster whose node runs its pods as real containers: a store, an apiserver, the scheduler, the
node IPAM controller and a `cri` kubelet for node-1, which starts its own containerd (pulling from
the session's local registry); the serviceaccount controller and the root-CA publisher, since every pod
mounts its account's token and kube-root-ca.crt. Skipped, saying why, where containerd cannot run."""
from __future__ import annotations

import zlib

import pytest

from actors.gateway.tls import alt_names, ensure_certificates
from actors.kubelet.cri import containerd
from actors.kubelet.volumes.tmpfs import Tmpfs
from tests.conftest import control_plane
from testkit.registry import session_registry
from testkit.waiting import wait_until


def own_range(cluster: str) -> str:
    """A pod range of this cluster's own: the host routes each node's range to its cluster's bridge, and
    two clusters on one host (other tests at the same time) with the same range would take each
    other's pod traffic — the kubelet's probes and the proxy's DNAT go through the host's routes."""
    return f"10.{128 + zlib.crc32(cluster.encode()) % 64}.0.0/16"


@pytest.fixture(autouse=True)
def no_mounts_left(settings):
    """Pods still there when a test ends leave their tmpfs mounts (every pod's kube-api-access volume):
    they go with the test, after its processes (this fixture is set up first, so torn down last)."""
    yield
    unmount_all(settings)


def unmount_all(settings) -> None:
    tmpfs = Tmpfs()
    for point in tmpfs.mounts_under(settings.data_dir) if settings.data_dir.exists() else []:
        tmpfs.unmount(point)


@pytest.fixture
def cri_cluster(procs, settings):
    why = containerd.available()
    if why:
        pytest.skip(f"no cri node here: {why}")
    client = start_cri_cluster(procs, settings)
    yield client
    client.close()


def start_cri_cluster(procs, settings):
    """The cluster of `cri_cluster` started (containerd must be available); a client of it."""
    registry = session_registry()
    procs.env["KUBUS_CLUSTER_CIDR"] = own_range(settings.cluster)
    client = control_plane(procs, settings)
    procs.start("actors.scheduler")
    procs.start("actors.controllers", "nodeipam", label="nodeipam-controller")
    procs.start("actors.controllers", "serviceaccount", label="serviceaccount-controller")
    ensure_certificates(settings.gateway_tls_dir, settings.cluster, alt_names(
        settings.with_(service_cidr=procs.env.get("KUBUS_SERVICE_CIDR", settings.service_cidr)).api_service_ip))
    procs.start("actors.controllers", "root-ca-cert-publisher", label="rootca-controller")
    procs.kubelet = procs.start("actors.kubelet", "--node", "node-1", "--runtime", "cri", label="kubelet",
                                KUBUS_REGISTRY_URL=registry, KUBUS_CONTAINER_LOG_MONITOR_INTERVAL="0.5")
    wait_until(lambda: (client.get("Node", "node-1").get("spec") or {}).get("podCIDR"), 30,
               what="node-1 registered, with its range")
    return client
