"""Slow: the replicated store on a 3-node RabbitMQ cluster, under compare-and-swap clients, through
each fault in turn — kill -9 of the active store; kill -9 of the broker node everyone uses; kill -9
of the node leading the WAL stream; the active store frozen (SIGSTOP) until a standby took over,
then resumed. Meanwhile a Deployment of 50 replicas on hollow nodes converges. After all of them: no
acknowledged write lost, the history linearizable (checked, not eyed), the Deployment available,
and the time from each fault to the first acknowledged write printed."""
from __future__ import annotations

import os
import signal
import time

import pytest

from runtime.client import Client
from tests.conftest import wait_serving
from tests.helpers import wait_until
from tests.histories import KEYS, CasClient, register
from tests.integration.test_deployment import deployment
from tests.linearizability import linearizable

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not os.path.exists("/usr/lib/rabbitmq/bin/rabbitmq-server"),
                                 reason="RabbitMQ's OS package is not installed")]
REPLICATED = {"KUBUS_STORE_REPLICATION": "stream", "KUBUS_WAL_SEGMENT_BYTES": str(1 << 20)}


@pytest.fixture
def amqp_url(rabbit_cluster, monkeypatch):
    monkeypatch.setenv("KUBUS_QUEUE_TYPE", "quorum")
    monkeypatch.setenv("KUBUS_HEARTBEAT_S", "5")
    return rabbit_cluster("urls").strip()


class Stores:
    """Replicated store processes, each with its own database; which one serves."""

    def __init__(self, procs, tmp_path):
        self.procs, self.tmp, self.started = procs, tmp_path, []

    def start(self) -> None:
        n = len(self.started)
        proc = self.procs.start("store", label=f"store-{n}", KUBUS_DATA_DIR=str(self.tmp / f"data-{n}"), **REPLICATED)
        self.started.append((proc, self.procs.logdir / f"store-{n}-{len(self.procs.procs) - 1}.log"))

    def active(self):
        """The live store whose log last says it serves (a store steps down when its connection goes)."""
        def serving(log) -> bool:
            text = log.read_text()
            return text.rfind('"store.active"') > text.rfind('"store.stepped_down"')
        found = [p for p, log in self.started if p.poll() is None and serving(log)]
        assert len(found) == 1, f"{len(found)} stores serve"
        return found[0]


def first_write_after(clients: list[CasClient], fault_at: float) -> float:
    """Seconds from the fault to the acknowledgement of the first write sent after it."""
    wait_until(lambda: any(sent > fault_at for c in clients for sent, _ in c.acked), 90,
               what="a write sent after the fault to be acknowledged")
    return min(done for c in clients for sent, done in c.acked if sent > fault_at) - fault_at


def stream_leader(rabbit_cluster, cluster: str) -> str:
    rows = rabbit_cluster("ctl", "2", "list_queues", "name", "leader").splitlines()
    leader = next(line.split()[1] for line in rows if line.startswith(f"{cluster}.store.wal"))
    return leader.removeprefix("kubus").split("@")[0]


def wal_replicated(rabbit_cluster, cluster: str, on: str) -> bool:
    """Every node has a running replica of the WAL stream (a restarted node's catches up first)."""
    try:
        status = rabbit_cluster("streams", on, "stream_status", f"{cluster}.store.wal")
    except AssertionError:
        return False
    return sum(1 for line in status.splitlines() if " kubus" in f" {line}" and "@localhost" in line) == 3


def test_the_replicated_store_survives_each_fault(procs, settings, rabbit_cluster):
    stores = Stores(procs, procs.logdir.parent)
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
    clients = [CasClient(settings, f"c{n}") for n in range(4)]
    for c in clients:
        c.start()
    took: dict[str, float] = {}

    def fault(name: str, act) -> None:
        wait_until(lambda: sum(len(c.acked) for c in clients) >= 30 * (len(took) + 1), 90, what=f"writes before {name}")
        at = time.monotonic()
        act()
        took[name] = first_write_after(clients, at)

    def kill_active_store() -> None:
        procs.kill9(stores.active())
        stores.start()

    fault("store kill -9", kill_active_store)
    fault("broker node kill -9", lambda: rabbit_cluster("kill", "1"))
    rabbit_cluster("start", "1")
    wait_until(lambda: wal_replicated(rabbit_cluster, settings.cluster, "3"), 60, what="the WAL on every node")
    leader = stream_leader(rabbit_cluster, settings.cluster)
    fault("stream leader kill -9", lambda: rabbit_cluster("kill", leader))
    rabbit_cluster("start", leader)
    wait_until(lambda: wal_replicated(rabbit_cluster, settings.cluster, "1"), 60, what="the WAL on every node")
    frozen = stores.active()
    fault("store frozen", lambda: os.kill(frozen.pid, signal.SIGSTOP))
    os.kill(frozen.pid, signal.SIGCONT)
    assert frozen.wait(30) == 75  # deposed (or fenced as frozen): it never answers again

    for c in clients:
        c.stop.set()
    for c in clients:
        c.join(60)
    wait_until(lambda: (admin.get("Deployment", "web", "default").get("status") or {}).get("availableReplicas") == 50,
               120, what="the Deployment's 50 replicas available")
    history = [op for c in clients for op in c.ops]
    assert linearizable(history, {k: "0" for k in KEYS}) == []
    assert sum(1 for op in history if op.kind == "cas" and op.result is True) >= 120
    print("failover (fault to first acknowledged write): " + ", ".join(f"{k} {v:.2f} s" for k, v in took.items()))
    admin.close()
