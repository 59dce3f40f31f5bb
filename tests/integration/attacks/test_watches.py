"""Watches that cannot pile up: a person's watch queues are bounded (429 beyond the bound, and a
queue that has gone no longer counts), and a watch queue declared again keeps no binding RBAC
has since taken away."""
from __future__ import annotations

import pika
import pytest

from api.status import StatusError
from runtime.client import Client
from tests.conftest import control_plane
from bus.testkit import blocking
from testkit.waiting import wait_until
from testkit.people import as_person

MAX_WATCHES = 3
POD_READER = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "pod-reader"},
              "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}]}


def reads_pods_in(ns: str) -> dict:
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": "alice-reads-pods", "namespace": ns},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "pod-reader"},
            "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"}]}


def pod(name: str, ns: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
            "spec": {"containers": [{"name": "app", "image": "busybox"}]}}


@pytest.fixture
def alice(procs, settings):
    """A cluster whose apiserver keeps MAX_WATCHES watches per person; alice reads pods in team-a
    and team-b; yields her client (the admin's is `alice.admin`)."""
    procs.env["KUBUS_MAX_WATCHES_PER_USER"] = str(MAX_WATCHES)
    admin = control_plane(procs, settings)
    admin.create(POD_READER)
    for ns in ("team-a", "team-b"):
        admin.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        admin.create(reads_pods_in(ns))
    client = Client(as_person(settings, "alice"), name="test alice")
    client.admin = admin
    wait_until(lambda: client.list("Pod", "team-b") is not None, 10, what="alice to read team-b")
    yield client
    client.close()
    admin.close()


def watch(client: Client, name: str, keys: list[str], timeout: float | None = None) -> str:
    """Ask an apiserver for watch queue `name` bound to `keys`, as a person's client does."""
    queue = client.names.watch_prefix("alice") + name
    client.request("watch", "*", options={"keys": keys, "queue": queue}, timeout=timeout)
    return queue


def test_a_person_cannot_pile_up_watch_queues(alice, settings):
    queues = [watch(alice, f"never-read-{i}", ["pod.team-a.*"]) for i in range(MAX_WATCHES)]
    with pytest.raises(StatusError) as refused:
        watch(alice, "one-more", ["pod.team-a.*"], timeout=1)
    assert (refused.value.reason, refused.value.code) == ("TooManyRequests", 429)
    assert refused.value.message == ('Too many requests: user "alice" has 3 watches open, the most an apiserver '
                                     'keeps for one user; close some first')
    _consume_then_cancel(alice.settings.amqp_url, settings.admin_url, queues[0])  # the queue goes with its last consumer
    watch(alice, "one-more", ["pod.team-a.*"])  # the gone one no longer counts
    # the cluster still serves, the person and everybody else
    assert alice.list("Pod", "team-a").items == []
    admin_watch = alice.admin.watch("Pod", "team-a").wait_synced(10)
    alice.admin.create(pod("after", "team-a"))
    assert admin_watch.next(10).object["metadata"]["name"] == "after"


def test_a_watch_declared_again_keeps_no_binding_rbac_took_away(alice, settings):
    queue = watch(alice, "mine", ["pod.team-a.*"])
    watch(alice, "mine", ["pod.team-b.*"])  # the same queue, now asked for team-b only
    alice.admin.delete("RoleBinding", "alice-reads-pods", "team-a")
    wait_until(lambda: _forbidden(lambda: alice.list("Pod", "team-a")), 10, what="alice's access to team-a to end")
    alice.admin.create(pod("secret", "team-a"))
    alice.admin.create(pod("marker", "team-b"))  # after the team-a pod: events reach the queue in order
    keys = _routing_keys_until(alice.settings.amqp_url, queue, "pod.team-b.-")
    assert [k for k in keys if k.startswith("pod.team-a.")] == [], "alice still sees team-a"
    assert alice.list("Pod", "team-b").items[0]["metadata"]["name"] == "marker"  # still served


def _forbidden(call) -> bool:
    try:
        call()
    except StatusError as exc:
        return exc.reason == "Forbidden"
    return False


def _consume_then_cancel(url: str, admin_url: str, queue: str) -> None:
    """As its person: consume `queue`, then cancel; auto-delete, it is gone with its consumer."""
    conn = blocking(url)
    try:
        channel = conn.channel()
        channel.basic_cancel(channel.basic_consume(queue, lambda *_: None))
    finally:
        conn.close()
    admin = blocking(admin_url)
    try:
        with pytest.raises(pika.exceptions.ChannelClosedByBroker) as gone:
            admin.channel().queue_declare(queue, passive=True)
        assert gone.value.reply_code == 404
    finally:
        admin.close()


def _routing_keys_until(url: str, queue: str, last: str) -> list[str]:
    """The routing keys of the messages `queue` gets, as its person reads them, up to one with `last`."""
    conn = blocking(url)
    seen: list[str] = []
    try:
        channel = conn.channel()

        def took() -> bool:
            method, _props, _body = channel.basic_get(queue, auto_ack=True)
            if method is not None:
                seen.append(method.routing_key)
            return last in seen
        wait_until(took, 10, what=f"the event with key {last}")
        return seen
    finally:
        conn.close()
