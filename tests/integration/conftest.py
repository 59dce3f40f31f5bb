"""Fixtures shared by the workload tests: a cluster with scheduler, hollow kubelets and controllers;
a 3-node RabbitMQ cluster (scripts/rabbit-cluster.sh) for the scale-out tests."""
from __future__ import annotations

import pytest

from runtime.client import Client
from tests.conftest import control_plane, module_cluster, shared
from tests.crds import delete_crds
from testkit.failover import rabbit_script
from testkit.waiting import wait_until
from tests.relay import Relay
from testkit.webserver import REPLICAS, SERVICE, deployment, ready_pods


@pytest.fixture
def node_cluster(procs, settings, request):
    """A store, an apiserver, the scheduler and one process-runtime kubelet (`procs.kubelet`), node-1.
    Marked `shared_plane`: those on the module's plane, the client in the test's own namespace."""
    yield from cluster_with(procs, settings, request, start_node, "node_plane")


def cluster_with(procs, settings, request, start, plane_fixture: str):
    """A control plane of the test's own with `start(procs, client)` run on it, its client; under `shared_plane`
    the module's (`plane_fixture`), the client in the test's own namespace."""
    if shared(request):
        yield request.getfixturevalue(plane_fixture).in_namespace(request.getfixturevalue("namespace"))
        return
    client = control_plane(procs, settings)
    start(procs, client)
    yield client
    client.close()


@pytest.fixture(scope="module")
def node_plane(plane):
    """The scheduler and node-1's kubelet on the module's plane; the plane's client."""
    start_node(plane.procs, plane.client)
    return plane.client


def start_node(procs, client) -> None:
    procs.start("actors.scheduler")
    procs.kubelet = procs.start("actors.kubelet", "--node", "node-1", label="kubelet")
    wait_until(lambda: client.get("Node", "node-1"), 30, what="the node to register")


@pytest.fixture
def crds(cluster):
    """`cluster` (a module's plane that runs the CRD controller: its `PLANE_ACTORS`); the CRDs a test made
    are gone after it."""
    yield cluster
    delete_crds(cluster)


def three_nodes(client) -> None:
    wait_until(lambda: len(client.list("Node").items) == 3, 30, what="three nodes")


@pytest.fixture
def node_1(cluster, settings):
    """A client that connects as the kubelet of node-1 (its broker user, `system:node:node-1`)."""
    from cli.bootstrap import Account, ensure_account
    from config.credentials import actor_url, read_secret

    secret = read_secret(settings)
    ensure_account(settings, secret, Account("node", "node-1"))
    kubelet = Client(settings.with_(amqp_url=actor_url(settings, secret, "node", "node-1")), name="test node-1")
    yield kubelet
    kubelet.close()


@pytest.fixture
def apps(procs, settings, request):
    """A store, an apiserver, the scheduler, four hollow nodes and the ReplicaSet and Deployment controllers
    (`procs.deployments`). Marked `shared_plane`: those on the module's plane, the client in the test's own
    namespace."""
    yield from cluster_with(procs, settings, request, start_apps, "apps_plane")


@pytest.fixture(scope="module")
def apps_plane(plane):
    """The workload actors of `apps` on the module's plane; the plane's client."""
    start_apps(plane.procs, plane.client)
    return plane.client


def start_apps(procs, client) -> None:
    procs.start("actors.scheduler")
    procs.start("actors.kubelet", "--hollow", "4", "--capacity", "cpu=32,memory=64Gi,pods=110")
    procs.start("actors.controllers", "replicaset", label="rs-controller")
    procs.deployments = procs.start("actors.controllers", "deployment", label="deploy-controller")
    wait_until(lambda: len(client.list("Node").items) == 4, 30, what="four nodes")


@pytest.fixture
def served(node_cluster, procs, tmp_path):
    """node_cluster with the networking controllers and the proxy, and Deployment `web` (3 replicas of
    testkit/webserver.py, readiness flags in tmp_path) behind NodePort Service `web`."""
    return serve(node_cluster, procs, tmp_path)


@pytest.fixture(scope="module")
def served_module(amqp_url, tmp_path_factory, request):
    """`served` once for a module whose tests share its Service, and the cluster's `procs`: (client, the
    Service, the flags' folder, procs). Its pods and proxy hold the host's default ranges, so while it
    runs no other such cluster can serve: every test of the module uses this one."""
    with module_cluster(amqp_url, tmp_path_factory, request, "served") as (settings, procs, tmp):
        client = control_plane(procs, settings)
        start_node(procs, client)
        flags = tmp / "flags"
        flags.mkdir()
        yield (*serve(client, procs, flags), procs)
        client.close()


def serve(client, procs, flags) -> tuple:
    """The networking controllers and the proxy started, Deployment `web` behind Service `web` ready:
    (client, the Service, the readiness flags' folder)."""
    for name in ("nodeipam", "endpointslice", "replicaset", "deployment", "gc"):
        procs.start("actors.controllers", name, label=f"{name}-controller")
    procs.proxy = procs.start("actors.proxy")
    # pods bound before the node has its range would start on the node's address, all on one port
    wait_until(lambda: client.get("Node", "node-1")["spec"].get("podCIDR"), 30, what="node-1's podCIDR")
    client.create(SERVICE)
    client.create(deployment(REPLICAS, str(flags)))
    service = client.get("Service", "web")
    wait_until(lambda: len(ready_pods(client)) == REPLICAS, 60, what="three ready replicas")
    return client, service, flags


@pytest.fixture
def rabbit_cluster(tmp_path):
    """Three joined RabbitMQ nodes of this test's own; the script's commands (`urls`, `kill 1` …)."""
    script = rabbit_script(tmp_path / "rabbit")
    try:
        script("up")
        yield script
    finally:
        script("down")


@pytest.fixture
def cluster_url(rabbit_cluster, monkeypatch) -> str:
    """Every node's URL; every process of the test declares quorum queues and beats every 5 s (a
    module on the cluster makes this its `amqp_url`)."""
    monkeypatch.setenv("KUBUS_QUEUE_TYPE", "quorum")
    monkeypatch.setenv("KUBUS_HEARTBEAT_S", "5")
    return rabbit_cluster("urls").strip()


@pytest.fixture
def relay(settings):
    """A relay (tests/relay.py) in front of the test broker, and the URLs that put it first."""
    real = settings.admin_url
    host, port = real.split("@", 1)[1].split("/", 1)[0].split(":")
    relay = Relay((host, int(port)))
    relay.start()
    relay.urls = f"{real.split('@')[0]}@127.0.0.1:{relay.port}/,{real}"
    yield relay
    relay.close()
