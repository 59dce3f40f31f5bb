"""A cluster whose node runs its pods as real containers: a store, an apiserver, the scheduler, the
node IPAM controller and a `cri` kubelet for node-1, which starts its own containerd (pulling from
the session's local registry); the serviceaccount controller and the root-CA publisher, since every pod
mounts its account's token and kube-root-ca.crt. Skipped, saying why, where containerd cannot run."""
from __future__ import annotations

import zlib
from contextlib import contextmanager
from types import SimpleNamespace

import pytest

from actors.gateway.tls import alt_names, ensure_certificates
from actors.kubelet.cri import containerd
from tests.conftest import control_plane, module_cluster
from testkit.registry import session_registry
from testkit.waiting import wait_until


def own_range(cluster: str) -> str:
    """A pod range of this cluster's own: the host routes each node's range to its cluster's bridge, and
    two clusters on one host (other tests at the same time) with the same range would take each
    other's pod traffic — the kubelet's probes and the proxy's DNAT go through the host's routes."""
    return f"10.{128 + zlib.crc32(cluster.encode()) % 64}.0.0/16"


@pytest.fixture
def cri_cluster(procs, settings):
    why = containerd.available()
    if why:
        pytest.skip(f"no cri node here: {why}")
    client = start_cri_cluster(procs, settings)
    yield client
    client.close()


@pytest.fixture(scope="module")
def cri_module(amqp_url, tmp_path_factory, request):
    """One cri cluster for a module's tests (`.client`, `.settings` as admin, `.procs`, `.tmp`): its
    containerd, images and actors started once instead of once a test (3–5 s a test). For tests that
    share its pods and add their own under names of their own; a test that restarts actors or changes
    what every pod sees keeps `cri_cluster`."""
    with module_cri_cluster(amqp_url, tmp_path_factory, request) as shared:
        yield shared


@contextmanager
def module_cri_cluster(amqp_url, tmp_path_factory, request, before=lambda procs, settings: None):
    """The cluster of `cri_module`, `before(procs, settings)` called before it starts (a module's own
    service range, say)."""
    why = containerd.available()
    if why:
        pytest.skip(f"no cri node here: {why}")
    with module_cluster(amqp_url, tmp_path_factory, request, "cri") as (settings, procs, tmp):
        before(procs, settings)
        client = start_cri_cluster(procs, settings)
        yield SimpleNamespace(client=client, settings=settings, procs=procs, tmp=tmp)
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
