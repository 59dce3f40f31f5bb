"""Contract 4 against the real broker and real actor processes: a reconnect keeps the cache and
resyncs it (a kubelet stops a pod force-deleted while it was away), events of the wrong shape are
dead-lettered without costing an actor its connection, and a stopped informer never consumes."""
from __future__ import annotations

import os
import signal
from urllib.parse import quote, unquote, urlparse

import msgpack
import pika
import pytest
import requests

from api.status import StatusError
from bus.topology import DEAD_REASON, SCHEMA_HEADER, SCHEMA_VERSION
from runtime.client import Watch
from tests.conftest import control_plane
from bus.testkit import blocking
from testkit.waiting import wait_until
from tests.helpers import close_connections_of, management_answers, read_queue
from tests.integration.test_crud import pod
from tests.integration.test_kubelet import processes, shell_pod, sleeper
from tests.integration.test_scheduler import bound_to, node
from tests.integration.test_watch import drain


@pytest.fixture
def kubelet_cluster(amqp_url, request):
    if not management_answers(amqp_url):
        pytest.skip("needs the RabbitMQ management API (make broker enables it)")
    return request.getfixturevalue("node_cluster")


def consumers(url: str, queue: str) -> int | None:
    """How many consumers `queue` has; None when it does not exist."""
    conn = blocking(url)
    try:
        return conn.channel().queue_declare(queue, passive=True).method.consumer_count
    except pika.exceptions.ChannelClosedByBroker:
        return None
    finally:
        if conn.is_open:
            conn.close()


def declared_arguments(url: str, queue: str) -> dict | None:
    """The arguments `queue` was declared with (management API); None while it does not exist."""
    parsed = urlparse(url)
    answer = requests.get(f"http://{parsed.hostname}:15672/api/queues/{quote(parsed.path[1:] or '/', safe='')}/"
                          f"{quote(queue, safe='')}", auth=(parsed.username, parsed.password), timeout=5)
    return answer.json().get("arguments") if answer.ok else None


def take_until(url: str, queue: str, wanted) -> None:
    """Take messages off `queue` (gone for good) until one holds an event `wanted(event)` accepts."""
    def taken() -> bool:
        for _props, raw in read_queue(url, queue):
            body = msgpack.unpackb(raw)
            if any(wanted(ev) for ev in (body if isinstance(body, list) else [body])):
                return True
        return False

    wait_until(taken, 20, 0.2, what=f"the event to reach {queue}")


def gone(client, name: str) -> bool:
    try:
        client.get("Pod", name)
    except StatusError as exc:
        return exc.reason == "NotFound"
    return False


def test_a_kubelet_stops_a_pod_force_deleted_while_it_was_disconnected(kubelet_cluster, procs, amqp_url):
    client, kubelet = kubelet_cluster, procs.kubelet
    marker = sleeper()
    client.create(shell_pod("vanishing", f"exec sleep {marker}"))
    wait_until(lambda: processes(marker), 30, what="the container process")
    queue = client.names.actor_queue("kubelet.node-1")
    os.kill(kubelet.pid, signal.SIGSTOP)
    try:  # cut off first, so no delivery of the deletion waits in its socket
        close_connections_of(kubelet.pid, amqp_url)
        wait_until(lambda: consumers(amqp_url, queue) == 0, 30, what="the broker to drop the kubelet's consumer")
        client.delete("Pod", "vanishing", grace_period=0)
        wait_until(lambda: gone(client, "vanishing"), 15, what="the store to remove the pod")
        take_until(amqp_url, queue, lambda ev: ev.get("type") == "DELETED"
                   and ev["object"]["metadata"]["name"] == "vanishing")  # lost, as in a broker restart
    finally:
        os.kill(kubelet.pid, signal.SIGCONT)
    wait_until(lambda: not processes(marker), 30, what="the kubelet to stop the force-deleted pod's container")
    assert kubelet.poll() is None
    later = sleeper()
    client.create(shell_pod("later", f"exec sleep {later}"))
    wait_until(lambda: processes(later), 30, what="a new pod to run after the reconnect")


def _event(name: str, obj: dict) -> dict:
    meta = {"name": name, "namespace": "default", "uid": f"u-{name}", "resourceVersion": "1000000"}
    return {"type": "ADDED", "kind": "Pod", "rev": 1000000, "prev": 0, "object": {"metadata": meta, **obj}}


BAD_EVENTS = {
    "no-metadata": {"type": "ADDED", "kind": "Pod", "rev": 1000000, "prev": 0, "object": {"kind": "Pod"}},
    "metadata-a-list": {"type": "ADDED", "kind": "Pod", "rev": 1000000, "prev": 0, "object": {"metadata": [1]}},
    "rv-not-a-number": _event("bad-rv", {"metadata": {"name": "bad-rv", "namespace": "default", "uid": "u",
                                                      "resourceVersion": "soon"}}),
    "no-uid": _event("no-uid", {"metadata": {"name": "no-uid", "namespace": "default",
                                             "resourceVersion": "1000000"}}),
    "spec-a-string": _event("bad-spec", {"spec": "nodeName"}),
}


def _publish_events(url: str, exchange: str, bodies: dict[str, dict]) -> None:
    """As the store (the only one who may): the events are bad, not their sender."""
    conn = blocking(url)
    try:
        channel = conn.channel()
        for case, body in bodies.items():
            props = pika.BasicProperties(headers={SCHEMA_HEADER: SCHEMA_VERSION}, message_id=f"bad-{case}",
                                         type="event", content_type="application/msgpack",
                                         user_id=unquote(urlparse(url).username))
            channel.basic_publish(exchange, "pod.default.-", msgpack.packb(body), props)
    finally:
        conn.close()


def _dead_actor(props) -> str:
    """Who dead-lettered it: an actor says so; a person's watch rejects it (it may not write `{c}.dead`)."""
    rejected = props.headers.get("x-first-death-reason") == "rejected"
    return props.headers.get("x-kubus-dead-actor") or ("watch" if rejected else "?")


def test_events_of_the_wrong_shape_are_dead_lettered_and_consumers_go_on(procs, settings, amqp_url):
    client = control_plane(procs, settings)
    client.create(node("node-a"))
    scheduler = procs.start("actors.scheduler")
    wait_until(lambda: consumers(amqp_url, client.names.actor_queue("scheduler")), 30, what="the scheduler")
    watch = client.watch("Pod", "default").wait_synced()
    _publish_events(procs.url_of("store", ()), client.names.events, BAD_EVENTS)
    dead: list = []
    expected = {(f"bad-{case}", actor) for case in BAD_EVENTS for actor in ("scheduler", "watch")}
    wait_until(lambda: dead.extend(read_queue(amqp_url, client.names.dead_queue)) or
               expected <= {(p.message_id, _dead_actor(p)) for p, _ in dead}, 20,
               what="every bad event dead-lettered by the scheduler and by the watch")
    assert all(p.headers[DEAD_REASON].startswith("invalid: ") for p, _ in dead if _dead_actor(p) == "scheduler"), \
        [p.headers for p, _ in dead]
    assert scheduler.poll() is None  # the same process, still connected
    client.create(pod("still-scheduled"))
    assert wait_until(lambda: bound_to(client, "still-scheduled"), 30, what="the pod to be bound") == "node-a"
    seen = drain(watch, lambda s: any(d.object["metadata"]["name"] == "still-scheduled" for d in s))
    assert not any(d.object["metadata"]["name"].startswith(("bad", "no-")) for d in seen)
    watch.close()
    client.close()


@pytest.mark.shared_plane  # the module's plane, the watch on the test's namespace
def test_a_watch_stopped_before_its_snapshot_never_consumes(cluster, amqp_url):
    keys = [f"pod.{cluster.namespace}.*"]
    spec = cluster.watch_queue(keys, name="stopped")
    watch = Watch(cluster, spec)
    watch.close()  # before the queue is even declared: the snapshot that follows is of a stopped generation
    for _ in range(2):  # replies come in order on one connection: the informer's would be in by now
        cluster.snapshot(keys)
    assert consumers(amqp_url, spec.name) == 0
    assert watch.synced.empty()


def test_an_actor_declares_its_cache_queue_with_the_configured_bound(procs, settings, amqp_url):
    if not management_answers(amqp_url):
        pytest.skip("needs the RabbitMQ management API (make broker enables it)")
    control_plane(procs, settings).close()
    procs.start("actors.scheduler", KUBUS_QUEUE_MAX_BYTES=str(3 << 20))
    queue = f"{settings.cluster}.scheduler"
    arguments = wait_until(lambda: declared_arguments(amqp_url, queue), 30, 0.2, what="the scheduler's queue")
    assert arguments["x-max-length-bytes"] == 3 << 20
