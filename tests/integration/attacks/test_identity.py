"""The walls, broker identities: replies cannot be forged (contract 2), broker user names cannot
collide across clusters, and an actor's broker user gets no view of the broker it does not need
(contract 5). The attacker is a node's broker user — a compromised kubelet — on the real broker,
against real store and apiserver processes."""
from __future__ import annotations

import os
import signal
from urllib.parse import unquote, urlparse

import msgpack
import pika
import pytest

from bus import admin
from bus.topology import SCHEMA_HEADER, SCHEMA_VERSION, Names
from cli.bootstrap import Account, ensure_account, remove_accounts
from config.credentials import actor_url, ensure_secret, read_secret, url_as
from config.identities import broker_user_of, identity_of
from bus.testkit import blocking
from testkit.waiting import wait_until
from tests.helpers import management_answers

FORGED = {"ok": True, "object": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "forged"}}}


def pod(name: str, node: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"nodeName": node, "containers": [{"name": "app", "image": "busybox"}]}}


def node_url(settings, node: str = "node-1") -> str:
    """The AMQP URL of a node's kubelet (its broker user made now)."""
    secret = read_secret(settings)
    ensure_account(settings, secret, Account("node", node))
    return actor_url(settings, secret, "node", node)


class Kubelet:
    """A compromised kubelet: a raw connection as the node's broker user, holding the node's `logs` queue."""

    def __init__(self, settings, node: str = "node-1"):
        url = node_url(settings, node)
        self.user = unquote(urlparse(url).username or "")
        self.conn = blocking(url)
        self.ch = self.conn.channel()
        self.ch.confirm_delivery()  # a publish returns once the broker has it
        self.logs = Names(settings.cluster).kubelet_logs_queue(node)
        self.ch.queue_declare(self.logs, exclusive=True, auto_delete=True)

    def next_request(self) -> pika.BasicProperties:
        """The properties of the next request the apiserver hands this node (reply address, correlation id)."""
        def taken():
            method, props, _body = self.ch.basic_get(self.logs, auto_ack=True)
            return props if method else None
        return wait_until(taken, 30, what="a logs request at the kubelet")

    def reply(self, reply_to: str, correlation_id: str, body: dict, user_id: str | None) -> None:
        self.ch.basic_publish("", reply_to, msgpack.packb(body), pika.BasicProperties(
            type="reply", correlation_id=correlation_id, user_id=user_id, headers={SCHEMA_HEADER: SCHEMA_VERSION}))

    def close(self) -> None:
        self.conn.close()


@pytest.fixture
def kubelet(cluster, settings):
    """node-1 and a pod bound to it; the node's broker user connected, holding the node's logs queue."""
    cluster.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}})
    cluster.create(pod("web", "node-1"))
    attacker = Kubelet(settings)
    yield attacker
    attacker.close()


def learn_reply_address(cluster, kubelet: Kubelet) -> pika.BasicProperties:
    """The person asks for logs; the apiserver hands the request, with the person's reply address and
    correlation id, to the node's kubelet, which answers it as a kubelet may."""
    asked = cluster.request_async("logs", "Pod", namespace="default", name="web")
    props = kubelet.next_request()
    kubelet.reply(props.reply_to, props.correlation_id, {"ok": True, "text": "hi\n", "offset": 3, "running": True},
                  kubelet.user)
    assert asked.result(30)["text"] == "hi\n", "a kubelet's answer to a logs request is believed"
    return props


def stop_apiserver(procs):
    """SIGTERM the apiserver process: requests wait in `{c}.apiserver` until one is started again."""
    proc = next(p for p in procs.procs if "actors.apiserver" in p.args and p.poll() is None)
    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(30)


def waiting_requests(settings) -> int:
    conn = blocking(settings.admin_url)
    try:
        return conn.channel().queue_declare(Names(settings.cluster).apiserver_queue, passive=True).method.message_count
    finally:
        conn.close()


def a_pending_get(cluster, procs, settings):
    """The person's next call, held in the request queue (no apiserver) so that a forged reply
    cannot lose the race to the real one."""
    stop_apiserver(procs)
    pending = cluster.request_async("get", "Pod", namespace="default", name="web", timeout=90)
    wait_until(lambda: waiting_requests(settings) == 1, 30, what="the get waiting in the request queue")
    return pending


def the_real_answer(cluster, procs, pending) -> None:
    """With an apiserver back, the person's call completes with the real pod, and the cluster serves."""
    procs.start("actors.apiserver")
    reply = pending.result(90)
    assert reply["object"]["metadata"]["name"] == "web", f"the call completed with a forged reply: {reply}"
    assert reply["object"]["metadata"].get("uid")
    assert cluster.get("Pod", "web")["spec"]["nodeName"] == "node-1"


# ---- replies cannot be forged -----------------------------------------------------------------------
def test_a_kubelet_that_saw_a_logs_request_cannot_guess_the_persons_next_correlation_id(
        kubelet, cluster, procs, settings):
    seen = learn_reply_address(cluster, kubelet)
    pending = a_pending_get(cluster, procs, settings)
    prefix, counter = seen.correlation_id[:16], int(seen.correlation_id[16:], 16)
    for guess in range(counter + 1, counter + 64):  # ids were a process prefix and a counter
        kubelet.reply(seen.reply_to, f"{prefix}{guess:x}", FORGED, kubelet.user)
    the_real_answer(cluster, procs, pending)


@pytest.mark.parametrize("as_itself", [pytest.param(True, id="user-id-of-the-node"),
                                       pytest.param(False, id="no-user-id")])
def test_a_reply_from_a_user_the_call_was_not_sent_to_is_dropped_even_with_the_right_id(
        kubelet, cluster, procs, settings, as_itself):
    seen = learn_reply_address(cluster, kubelet)
    pending = a_pending_get(cluster, procs, settings)
    (leaked,) = cluster.rpc.pending  # the id leaked, however: only its answerer's reply may complete it
    kubelet.reply(seen.reply_to, leaked, FORGED, kubelet.user if as_itself else None)
    the_real_answer(cluster, procs, pending)


# ---- broker user names cannot collide across clusters ----------------------------------------------
def logs_in(url: str) -> bool:
    try:
        blocking(url).close()
    except pika.exceptions.AMQPConnectionError:  # ProbableAuthenticationError: refused
        return False
    return True


@pytest.fixture
def neighbours(settings):
    """Cluster `a` and clusters named `a-user` and `a-node` on the same broker, each with its secret;
    their accounts removed after."""
    a = settings.with_(cluster=f"{settings.cluster}-a")
    clusters = [a, a.with_(cluster=f"{a.cluster}-user"), a.with_(cluster=f"{a.cluster}-node")]
    for each in clusters:
        ensure_secret(each.secret_file)
    yield clusters
    for each in clusters:
        remove_accounts(each)


def actor(settings, role: str, name: str | None = None) -> str:
    """Make a role's account as `kubus bootstrap` does; its AMQP URL."""
    ensure_account(settings, read_secret(settings), Account(role, name))
    return actor_url(settings, read_secret(settings), role, name)


@pytest.mark.shared_plane  # users of clusters named after the plane's, removed after
def test_deleting_a_cluster_leaves_the_users_of_clusters_named_like_its_users(neighbours, cluster):
    a, a_user, a_node = neighbours
    actor(a, "node", "n1")
    others = [actor(a_node, "node", "n1"), actor(a_user, "store")]
    assert remove_accounts(a) == [broker_user_of(a.cluster, "node", "n1")]
    assert all(logs_in(url) for url in others), "deleting cluster a removed another cluster's users"
    assert cluster.get("Namespace", "default")


@pytest.mark.shared_plane  # users of clusters named after the plane's, removed after
def test_a_person_named_store_is_not_the_store_of_a_cluster_named_like_its_users(neighbours, cluster):
    a, a_user, _ = neighbours
    person = ensure_account(a, b"", Account("user", "store", password="the-persons-own-password"))
    store = actor(a_user, "store")
    assert logs_in(url_as(a.admin_url, person, "the-persons-own-password")), \
        "making another cluster's store took the person's account"
    assert unquote(urlparse(store).username) != person
    assert identity_of(a.cluster, unquote(urlparse(store).username), {"store": ()}) is None
    assert cluster.get("Namespace", "default")


# ---- no actor gets a view of the broker it does not need ---------------------------------------------
@pytest.mark.shared_plane  # reads: the module's one plane, a namespace per test
@pytest.mark.parametrize("role, name", [("node", "node-1"), ("hollow", None), ("store", None), ("apiserver", None),
                                        ("scheduler", None), ("controller", "replicaset")])
def test_an_actors_user_cannot_list_the_brokers_queues(cluster, settings, role, name):
    if not management_answers(settings.admin_url):
        pytest.skip("no management API")
    watch = cluster.watch("Pod", cluster.namespace).wait_synced()  # a person's watch queue, named after them
    queues = f"queues/{admin.vhost_path(settings.admin_url)}"
    assert any(q["name"].startswith(f"{settings.cluster}.watch.") for q in admin.get_json(settings.admin_url, queues))
    with pytest.raises(admin.AdminError, match="401"):
        admin.get_json(actor(settings, role, name), queues)
    watch.close()
    assert cluster.get("Namespace", "default")
