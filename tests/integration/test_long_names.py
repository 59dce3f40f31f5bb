"""A 253-character node name in a 63-character namespace is legal Kubernetes: its routing keys and
queue names are shortened by contract 1's segment encoding and still work end to end."""
from __future__ import annotations

import pytest

from api.events import event
from bus.topology import Names, routing_key, segment
from bus.testkit import blocking, cluster_queues
from testkit.waiting import wait_until
from tests.integration.test_crud import pod

LABEL = "a" * 63
NODE = ".".join([LABEL, "b" * 63, "c" * 63, "d" * 61])  # 253 characters, every label at most 63
NAMESPACE = "n" * 63


def longest(namespace: str) -> tuple[str, str]:
    """A 63-character namespace and a 253-character node like NAMESPACE and NODE, named after the test's
    namespace (cluster-scoped names on a shared plane)."""
    return (f"{namespace}-" + "n" * 63)[:63], ".".join([(f"{namespace}-" + "a" * 63)[:63], *NODE.split(".")[1:]])


class KeyRecorder:
    """A raw queue bound to every event of the cluster; remembers routing keys and CC headers."""

    def __init__(self, amqp_url: str, names: Names):
        self.conn = blocking(amqp_url)
        self.channel = self.conn.channel()
        self.queue = self.channel.queue_declare("", exclusive=True).method.queue
        self.channel.queue_bind(self.queue, names.events, routing_key="#")

    def keys(self) -> list[str]:
        out = []
        while (got := self.channel.basic_get(self.queue, auto_ack=True))[0] is not None:
            method, props, _body = got
            out += [method.routing_key, *((props.headers or {}).get("CC") or [])]
        return out

    def close(self) -> None:
        self.conn.close()


@pytest.mark.shared_plane  # the module's plane; the long names its own
def test_long_node_and_namespace_names_work_end_to_end(cluster, amqp_url):
    namespace, node = longest(cluster.namespace)
    assert (len(namespace), len(node)) == (63, 253)
    pod_key = routing_key("pod", namespace, node)
    recorder = KeyRecorder(amqp_url, cluster.names)
    cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    cluster.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": node}})
    watch = cluster.watch("Pod", namespace, node).wait_synced()
    assert watch.informer.spec.bindings == ((cluster.names.events, pod_key),)

    created = cluster.create(pod("web"), namespace=namespace)
    bound = cluster.bind("web", node, namespace=namespace)
    assert bound["spec"]["nodeName"] == node
    delta = watch.next(timeout=20)
    assert (delta.type, delta.object["metadata"]["uid"]) == ("ADDED", created["metadata"]["uid"])
    cluster.create(event(bound, "Scheduled", f"Successfully assigned {namespace}/web to {node}", "Normal",
                         "default-scheduler"))
    assert [e["involvedObject"]["name"] for e in cluster.list("Event", namespace).items] == ["web"]

    keys: list[str] = []
    wait_until(lambda: keys.extend(recorder.keys()) or f"event.{namespace}.-" in keys, what="the Event's key")
    watch.close()
    recorder.close()
    assert {pod_key, routing_key("pod", namespace, None), routing_key("node", None, node)} <= set(keys)
    assert all(len(k.encode()) <= 255 for k in keys), [k for k in keys if len(k.encode()) > 255]
    cluster.delete("Namespace", namespace)
    cluster.delete("Node", node)


def test_hollow_kubelet_with_a_253_character_node_declares_names_that_fit(cluster, procs, settings):
    prefix = NODE[:-2]  # hollow nodes are PREFIX-0, PREFIX-1, ...
    procs.start("actors.kubelet", "--hollow", "1", "--prefix", prefix)
    queue = f"{settings.cluster}.kubelet.{segment(prefix)}"
    queues = wait_until(lambda: queue in (q := cluster_queues(settings.admin_url, settings.cluster)) and q,
                        30, 0.2, what=f"the kubelet's queue {queue}")
    assert f"{queue}.lock" in queues  # simulated nodes serve no logs: no `.logs` queue
    assert all(len(q.encode()) <= 255 for q in queues)


def test_hollow_kubelet_with_a_253_character_node_registers(cluster, procs):
    prefix = NODE[:-2]
    procs.start("actors.kubelet", "--hollow", "1", "--prefix", prefix)
    node = wait_until(lambda: cluster.get("Node", f"{prefix}-0"), 10, 0.2, what="the hollow node")
    assert len(node["metadata"]["name"]) == 253
