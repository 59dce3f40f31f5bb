"""Every actor serves Prometheus metrics on its own KUBUS_METRICS_PORT: a ReplicaSet of 3 pods
moves the apiserver's, the store's, the scheduler's, the controller's and the kubelet's counters."""
from __future__ import annotations

import socket
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from runtime.client import Client
from tests.conftest import wait_serving
from testkit.waiting import wait_until

ACTORS = {  # label -> (module, args), in the order they start
    "store": ("store", ()),
    "apiserver": ("actors.apiserver", ()),
    "scheduler": ("actors.scheduler", ()),
    "kubelet": ("actors.kubelet", ("--hollow", "2")),
    "replicaset": ("actors.controllers", ("replicaset",)),
}
REPLICASET = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web"},
              "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": {"app": "web"}},
                                    "spec": {"containers": [{"name": "c", "image": "nginx:1.25"}]}}}}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def scrape(port: int) -> dict[tuple[str, tuple], float]:
    """Every sample of the actor's `/metrics`: (name, sorted labels) -> value."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
        text = resp.read().decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def total(samples: dict, name: str, **labels: str) -> float | None:
    """The sum of a metric's samples whose labels include `labels`; None when it has none."""
    values = [v for (n, ls), v in samples.items() if n == name and set(labels.items()) <= set(ls)]
    return sum(values) if values else None


def at_least(port: int, name: str, labels: dict, least: float) -> bool:
    value = total(scrape(port), name, **labels)
    return value is not None and value >= least


@pytest.fixture
def cluster_with_metrics(procs, settings):
    """control_plane's cluster, each actor with a metrics port of its own (one apiserver: every
    request passes the one scraped)."""
    ports = {label: free_port() for label in ACTORS}
    for label, (module, args) in ACTORS.items():
        procs.start(module, *args, label=label, KUBUS_METRICS_PORT=str(ports[label]))
    client = Client(settings, name="test")
    wait_serving(client)
    wait_until(lambda: len(client.list("Node").items) == 2, 30, what="two hollow nodes")
    yield client, ports
    client.close()


def test_every_actor_serves_metrics_that_move(cluster_with_metrics):
    client, ports = cluster_with_metrics
    client.create(REPLICASET)
    wait_until(lambda: (client.get("ReplicaSet", "web").get("status") or {}).get("readyReplicas") == 3, 60,
               what="3 ready replicas")
    for actor, name, labels, least in EXPECTED:  # gauges set by a timer may lag the workload by its interval
        wait_until(lambda: at_least(ports[actor], name, labels, least), 10, what=f"{actor}: {name}{labels} >= {least}")
    rv = int(client.get("ReplicaSet", "web")["metadata"]["resourceVersion"])
    assert at_least(ports["store"], "kubus_store_revision", {}, rv)
    kubelet = scrape(ports["kubelet"])  # an actor exports its own metrics, not every actor's at 0
    assert total(kubelet, "kubus_store_revision") is None and total(kubelet, "apiserver_request_total") is None


EXPECTED = [  # actor, metric, labels it must have, the least value
    ("apiserver", "apiserver_request_total", {"verb": "create", "resource": "replicasets", "code": ""}, 1),
    ("apiserver", "apiserver_request_total", {"resource": "pods"}, 3),
    ("apiserver", "apiserver_request_duration_seconds_count", {"verb": "create", "resource": "replicasets"}, 1),
    ("apiserver", "kubus_bus_delivered_total", {}, 1),
    ("store", "kubus_store_revision", {}, 1),
    ("store", "kubus_store_batch_size_count", {}, 1),
    ("store", "kubus_store_commit_duration_seconds_count", {}, 1),
    ("store", "kubus_store_db_size_bytes", {}, 1),
    ("store", "kubus_bus_published_total", {}, 1),
    ("store", "kubus_bus_confirmed_total", {}, 1),
    ("scheduler", "scheduler_schedule_attempts_total", {"result": "scheduled", "profile": "default-scheduler"}, 3),
    ("scheduler", "scheduler_scheduling_attempt_duration_seconds_count", {"result": "scheduled"}, 3),
    ("scheduler", "scheduler_pending_pods", {"queue": "active"}, 0),
    ("scheduler", "kubus_bus_published_total", {}, 1),
    ("replicaset", "workqueue_adds_total", {}, 1),
    ("replicaset", "kubus_bus_published_total", {}, 1),
    ("kubelet", "kubelet_running_pods", {}, 3),
    ("kubelet", "kubus_bus_published_total", {}, 1),
]
