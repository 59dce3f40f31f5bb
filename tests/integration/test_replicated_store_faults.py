"""Slow: the replicated store on a 3-node RabbitMQ cluster, under compare-and-swap clients, through
each fault in turn — kill -9 of the active store; kill -9 of the broker node everyone uses; kill -9
of the node leading the WAL stream; the active store frozen (SIGSTOP) until a standby took over,
then resumed; the broker node of the active store frozen the same way. Meanwhile a Deployment of 50
replicas on hollow nodes converges and a watch follows every pod. After all of them: no
acknowledged write lost, the history linearizable (checked, not eyed), the Deployment available,
the watch's view of every pod the store's, and the time from each fault to the first acknowledged
write printed."""
from __future__ import annotations

import os
import signal
import time

import pytest

from runtime.client import Client
from tests.conftest import wait_serving
from runtime.cache import Delta
from tests.failover import ON_RABBIT_CLUSTER
from testkit.failover import (Stores, first_write_after, restart_node, stream_leader, thaw_node,
                            writes_after)
from testkit.waiting import wait_until
from testkit.histories import KEYS, CasClient, register
from tests.integration.test_deployment import deployment
from testkit.linearizability import linearizable

pytestmark = ON_RABBIT_CLUSTER


@pytest.fixture
def amqp_url(cluster_url):
    return cluster_url


def test_the_replicated_store_survives_each_fault(procs, settings, rabbit_cluster):
    def start_store(n: int, env: dict):
        proc = procs.start("store", label=f"store-{n}", KUBUS_DATA_DIR=str(procs.logdir.parent / f"data-{n}"), **env)
        return proc, procs.logdir / f"store-{n}-{len(procs.procs) - 1}.log"
    stores = Stores(start_store)
    stores.start()
    procs.start("actors.apiserver")
    admin = Client(settings, name="setup")
    wait_serving(admin, 60)
    stores.start()
    for key in KEYS:
        admin.create(register(key), namespace="default")
    procs.start("actors.scheduler")
    procs.start("actors.kubelet", "--hollow", "5", "--capacity", "cpu=32,memory=64Gi,pods=110")
    for name in ("replicaset", "deployment"):
        procs.start("actors.controllers", name, label=f"{name}-controller")
    admin.create(deployment("web", 50), namespace="default")
    watched: dict[str, str] = {}
    admin.watch("Pod", "default", handler=lambda d: _follow(watched, d)).wait_synced(60)
    clients = [CasClient(settings, f"c{n}") for n in range(4)]
    for c in clients:
        c.start()
    took: dict[str, float] = {}

    def fault(name: str, act) -> None:
        writes_after(clients, 30)
        act()
        at = time.monotonic()  # in effect (the script's kill waits for the node to be gone)
        took[name] = first_write_after(clients, at)

    def kill_active_store() -> None:
        procs.kill9(stores.active())
        stores.start()

    fault("store kill -9", kill_active_store)
    fault("broker node kill -9", lambda: rabbit_cluster("kill", "1"))
    restart_node(rabbit_cluster, settings.cluster, "1")
    leader = stream_leader(rabbit_cluster, settings.cluster)
    fault("stream leader kill -9", lambda: rabbit_cluster("kill", leader))
    restart_node(rabbit_cluster, settings.cluster, leader)
    frozen = stores.active()
    fault("store frozen", lambda: os.kill(frozen.pid, signal.SIGSTOP))
    os.kill(frozen.pid, signal.SIGCONT)
    assert frozen.wait(30) == 75  # deposed (or fenced as frozen): it never answers again
    stores.start()
    node = stores.active_node()
    fault("broker node frozen", lambda: rabbit_cluster("freeze", node))
    thaw_node(rabbit_cluster, settings.cluster, node)

    for c in clients:
        c.stop.set()
    for c in clients:
        c.join(60)
    wait_until(lambda: (admin.get("Deployment", "web", "default").get("status") or {}).get("availableReplicas") == 50,
               120, what="the Deployment's 50 replicas available")
    wait_until(lambda: watched == _versions(admin), 60, what="the watch to see every pod as the store has it")
    history = [op for c in clients for op in c.ops]
    assert linearizable(history, {k: "0" for k in KEYS}) == []
    assert sum(1 for op in history if op.kind == "cas" and op.result is True) >= 120
    print("failover (fault to first acknowledged write): " + ", ".join(f"{k} {v:.2f} s" for k, v in took.items()))
    admin.close()


def _follow(watched: dict[str, str], delta: Delta) -> None:
    """Keeps each pod's resourceVersion as the watch last showed it (on the connection's thread)."""
    name = delta.object["metadata"]["name"]
    if delta.type == "DELETED":
        watched.pop(name, None)
    else:
        watched[name] = delta.object["metadata"]["resourceVersion"]


def _versions(client: Client) -> dict[str, str]:
    return {p["metadata"]["name"]: p["metadata"]["resourceVersion"] for p in client.list("Pod", "default").items}
