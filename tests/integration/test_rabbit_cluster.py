"""The 3-node RabbitMQ cluster of scripts/rabbit-cluster.sh: three joined nodes on loopback with
docker/rabbitmq-cluster's failure-detection settings in force; a quorum queue declared on one node
keeps a confirmed message when that node is killed, and the node rejoins when started again; a
connection given every node's URL moves to another node when its own dies; `down` leaves no broker
process and no directory behind."""
from __future__ import annotations

import os
import shutil
import subprocess
import threading
from urllib.parse import urlparse

import pika

from testkit.failover import SCRIPT
from tests.failover import ON_RABBIT_CLUSTER
from testkit.waiting import wait_until

pytestmark = ON_RABBIT_CLUSTER


def states(script) -> dict[str, str]:
    rows = [line.split() for line in script("status").splitlines()[1:]]
    return {row[0]: row[3] for row in rows}


def channel_on(port: int):
    connection = pika.BlockingConnection(pika.ConnectionParameters("127.0.0.1", port))
    return connection, connection.channel()


def get_one(port: int) -> bytes | None:
    """One message of `q` through the node on `port`, on a connection of its own (a channel that
    met the queue while its leader moved is closed by the broker)."""
    connection, channel = channel_on(port)
    try:
        return channel.basic_get("q", auto_ack=True)[2]
    finally:
        connection.close()


def test_a_quorum_queue_outlives_the_node_it_was_declared_on(rabbit_cluster, tmp_path):
    assert states(rabbit_cluster) == {f"kubus{n}@localhost": "running" for n in (1, 2, 3)}
    assert rabbit_cluster("ctl", "2", "eval", "net_kernel:get_net_ticktime().").strip() == "5"
    assert rabbit_cluster("ctl", "2", "eval", "application:get_env(kernel, net_setuptime).").strip() == "{ok,2}"
    assert rabbit_cluster("ctl", "3", "eval", "application:get_env(aten, poll_interval).").strip() == "{ok,1000}"
    assert rabbit_cluster("ctl", "1", "eval", "application:get_env(rabbit, cluster_partition_handling).").strip() \
        == "{ok,pause_minority}"
    urls = rabbit_cluster("urls").strip().split(",")
    assert urls == [f"amqp://guest:guest@127.0.0.1:{5700 + n}/" for n in (1, 2, 3)]

    connection, channel = channel_on(5701)
    channel.queue_declare("q", durable=True, arguments={"x-queue-type": "quorum"})
    channel.confirm_delivery()
    channel.basic_publish("", "q", b"kept", pika.BasicProperties(delivery_mode=2))  # raises unless confirmed
    connection.close()

    rabbit_cluster("kill", "1")
    assert states(rabbit_cluster)["kubus1@localhost"] == "down"
    assert wait_until(lambda: get_one(5702), 30, what="the message from a surviving node") == b"kept"

    rabbit_cluster("start", "1")
    assert states(rabbit_cluster)["kubus1@localhost"] == "running"
    connection, channel = channel_on(5701)  # rejoined: the queue is there, and empty
    assert channel.queue_declare("q", passive=True).method.message_count == 0
    connection.close()


def test_down_leaves_nothing(tmp_path):
    env = {**os.environ, "KUBUS_RABBIT_CLUSTER_DIR": str(tmp_path / "rabbit")}
    subprocess.run([SCRIPT, "up"], env=env, check=True, capture_output=True, timeout=180)
    subprocess.run([SCRIPT, "down"], env=env, check=True, capture_output=True, timeout=60)
    assert not (tmp_path / "rabbit").exists()
    assert subprocess.run(["pgrep", "-f", f"{tmp_path}/rabbit"], capture_output=True).returncode == 1
    assert shutil.which("rabbitmqctl")


def test_a_connection_moves_to_another_node_when_its_node_dies(rabbit_cluster):
    from bus.connection import Bus

    bus = Bus(rabbit_cluster("urls").strip(), "failover test", "test", lambda _bus: None, heartbeat=5).start_thread()
    try:
        generation, port = bus.generation, urlparse(bus.url).port
        assert port == 5701  # the first node given
        rabbit_cluster("kill", "1")
        wait_until(lambda: bus.ready.is_set() and bus.generation > generation, 30, what="a new connection")
        assert urlparse(bus.url).port in (5702, 5703)
        answered = threading.Event()
        bus.call_soon(lambda: bus.channel.queue_declare("", exclusive=True, callback=lambda _f: answered.set()))
        assert answered.wait(10), "the new node did not answer a declare"
    finally:
        bus.stop()
