"""kubus's control plane on a 3-node RabbitMQ cluster with quorum queues: the store and the
apiserver connect to the first node, writers keep writing while that node is killed, everyone moves
to a surviving node, and no acknowledged write is lost. (The store's own host is not replicated
yet: this is the broker's half of the scale-out.)"""
from __future__ import annotations

import threading
import time

import pytest

from runtime.client import Client
from tests.failover import ON_RABBIT_CLUSTER
from tests.fuzz_strategies import pod
from testkit.waiting import wait_until

pytestmark = ON_RABBIT_CLUSTER


@pytest.fixture
def amqp_url(cluster_url):
    return cluster_url


class Writer(threading.Thread):
    """Creates pods one after another until stopped; keeps the names the store acknowledged, with
    when each request left and when it was acknowledged."""

    def __init__(self, settings, prefix: str):
        super().__init__(daemon=True)
        self.client = Client(settings, name=f"writer {prefix}")
        self.prefix, self.acked, self.failures, self.stop = prefix, [], 0, threading.Event()

    def run(self) -> None:
        i = 0
        while not self.stop.is_set():
            started = time.monotonic()
            try:
                self.client.create(pod(f"{self.prefix}-{i}"), namespace="default")
                self.acked.append((f"{self.prefix}-{i}", started, time.monotonic()))
            except Exception:  # a timeout while the broker moved: the next name, this one may exist
                self.failures += 1
            i += 1


def test_writes_go_on_when_the_broker_node_everyone_uses_is_killed(cluster, settings, rabbit_cluster):
    queues = dict(line.split()[:2] for line in rabbit_cluster("ctl", "1", "list_queues", "name", "type").splitlines()
                  if line.startswith(settings.cluster))
    assert queues[f"{settings.cluster}.store"] == "quorum" and queues[f"{settings.cluster}.apiserver"] == "quorum"

    writers = [Writer(settings, f"w{n}") for n in range(2)]
    for writer in writers:
        writer.start()
    wait_until(lambda: all(len(w.acked) >= 20 for w in writers), 60, what="writes before the fault")
    killed_at = time.monotonic()
    rabbit_cluster("kill", "1")
    wait_until(lambda: all(any(sent > killed_at for _, sent, _ in w.acked) for w in writers), 60,
               what="every writer's first write sent after the fault")
    recovered = min(at for w in writers for _, sent, at in w.acked if sent > killed_at) - killed_at
    wait_until(lambda: all(len(w.acked) >= 60 for w in writers), 60, what="writes after the fault")
    for writer in writers:
        writer.stop.set()
        writer.join(30)
        writer.client.close()

    with Client(settings, name="reader") as reader:
        stored = {p["metadata"]["name"] for p in reader.list("Pod", "default").items}
    acked = {name for w in writers for name, _, _ in w.acked}
    assert acked - stored == set(), f"acknowledged but lost: {sorted(acked - stored)}"
    print(f"first write sent after the kill -9 of the broker node acknowledged {recovered:.2f} s after it; "
          f"{sum(w.failures for w in writers)} requests timed out")
    rabbit_cluster("start", "1")  # back for the teardown's accounts and names
