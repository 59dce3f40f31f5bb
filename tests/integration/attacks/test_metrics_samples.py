"""Who may send the metrics actor samples: node-1's kubelet (its broker user) sends the samples kubelets send,
through the default exchange to `{c}.controller.metrics-server`. Before the fix the actor believed the body's
`node`: node-1 could report node-2's usage and pods (team-b's pod, whose HorizontalPodAutoscaler reads it) and
add a node per name it made up; and one sample with a NaN or infinite time made every later NodeMetrics read
fail. Now a kubelet speaks for its own node only, and a sample no kubelet makes is dropped whole; and the
apiserver serves a PodMetrics only of a pod bound to the node that reported it, with the uid it reported."""
from __future__ import annotations

import time

import msgpack
import pika
import pytest

from api.status import StatusError
from bus.topology import SCHEMA_HEADER, SCHEMA_VERSION
from cli.bootstrap import Account, ensure_account
from config.credentials import actor_url, read_secret
from testkit.waiting import wait_until
from tests.tenancy import VICTIM_NS, two_tenants


def _sample(node: str, at: float, cpu: int, pods: list | None = None, **fields) -> dict:
    return {"node": node, "time": at, "cpu": cpu, "memory": 1 << 20, "pods": pods or [], "labels": {}, **fields}


def _pod(namespace: str, cpu: int, uid: str = "made-up") -> dict:
    return {"namespace": namespace, "name": "web", "uid": uid, "labels": {"app": "web"},
            "containers": [{"name": "app", "cpu": cpu, "memory": 1 << 20}]}


def _send(url: str, queue: str, bodies: list[dict]) -> None:
    conn = pika.BlockingConnection(pika.URLParameters(url))
    try:
        ch = conn.channel()
        user = pika.URLParameters(url).credentials.username
        for body in bodies:
            ch.basic_publish("", queue, msgpack.packb(body), pika.BasicProperties(
                type="sample", user_id=user, content_type="application/msgpack",
                headers={SCHEMA_HEADER: SCHEMA_VERSION}))
    finally:
        conn.close()


def _names(cluster, kind: str, namespace: str | None = None) -> list[str]:
    try:
        return sorted(i["metadata"]["name"] for i in cluster.request("list", kind, namespace=namespace)["items"])
    except StatusError as exc:
        return [f"{exc.reason}: {exc.message}"]


@pytest.fixture
def node_1_url(cluster, procs, settings) -> str:
    two_tenants(cluster, procs)
    secret = read_secret(settings)
    ensure_account(settings, secret, Account("node", "node-1"))
    return actor_url(settings, secret, "node", "node-1")


def test_a_kubelet_speaks_for_its_own_node_only_and_a_bad_sample_is_dropped(cluster, procs, settings, node_1_url):
    procs.start("actors.metrics", label="metrics")
    wait_until(lambda: _names(cluster, "NodeMetrics") == [], 20, what="the metrics actor to answer")
    queue = f"{settings.cluster}.controller.metrics-server"
    now = time.time()
    forged = [_sample("node-2", now + i, 10**9 * (1 + 50 * i), [_pod(VICTIM_NS, 10**9 * (1 + 50 * i))])
              for i in range(2)]  # team-b's pod at 50 cores: its autoscaler would scale to its maximum
    invented = [_sample(f"ghost-{i}", now + j, 1) for i in range(50) for j in range(2)]
    malformed = [_sample("node-1", float("nan"), 1), _sample("node-1", float("inf"), 1),
                 _sample("node-1", now, [1]), _sample("node-1", now, -5), _sample("node-1", now, 1, pods="web"),
                 _sample("node-1", now, 1, pods=[{"namespace": "default", "name": "web"}]),
                 _sample("node-1", now, 1, labels=["x"]), ["not", "a", "sample"], "x" * 1000]
    theirs = cluster.get("Pod", "web", VICTIM_NS)["metadata"]["uid"]  # bound to node-2; node-1 could not know it
    ours = cluster.get("Pod", "web", "default")["metadata"]["uid"]  # bound to node-1
    own = [_sample("node-1", now + 1 + i, 10**8 * (1 + i), [_pod("default", 10**8 * (1 + i), ours),
                                                            _pod(VICTIM_NS, 10**9 * (1 + 50 * i), theirs)])
           for i in range(2)]  # its own node's sample, naming team-b's pod too (by its very uid)
    _send(node_1_url, queue, [*forged, *invented, *malformed, *own])
    wait_until(lambda: _names(cluster, "NodeMetrics") == ["node-1"], 20,
               what=f"node-1's own metrics served, and only those: {_names(cluster, 'NodeMetrics')}")
    assert _names(cluster, "PodMetrics", VICTIM_NS) == []
    assert _names(cluster, "PodMetrics", "default") == ["web"]
    assert sorted(i["metadata"]["namespace"] for i in cluster.request("list", "PodMetrics")["items"]) == ["default"]
    with pytest.raises(StatusError) as missing:
        cluster.request("get", "PodMetrics", namespace=VICTIM_NS, name="web")
    assert missing.value.reason == "NotFound"
    served = cluster.request("get", "PodMetrics", namespace="default", name="web")["object"]
    assert "origin" not in served and served["containers"][0]["usage"]["cpu"] == "100000000n"
