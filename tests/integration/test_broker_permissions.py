"""Contract 5 against the real broker: a fresh cluster's users, made with `bus.accounts` and
`bus.permissions`, each tried with raw pika. Every refusal is the broker's own."""
from __future__ import annotations

import contextlib
import time
import uuid
from dataclasses import dataclass
from typing import Callable
from urllib.parse import quote, urlparse

import pika
import pytest
from pika.exceptions import ChannelClosedByBroker

from bus import accounts, admin
from bus.declare import dead_queue_arguments, event_queue_arguments, request_queue_arguments
from bus.permissions import permissions, watch_queue
from bus.topology import Names
from config.identities import broker_user_of, password_for
from bus.testkit import blocking, delete_topology
from testkit.waiting import wait_until
from tests.helpers import management_answers

SECRET = b"test secret"
ROLES = {  # short name -> (role, name part)
    "store": ("store", None), "apiserver": ("apiserver", None), "scheduler": ("scheduler", None),
    "rs": ("controller", "replicaset"), "node-1": ("node", "node-1"), "node-2": ("node", "node-2"),
    "hollow": ("hollow", None), "alice": ("user", "alice"), "bob": ("user", "bob"), "builder": ("sa", "default.builder"),
}
REFUSED, PRECONDITION = 403, 406


@dataclass
class Cluster:
    url: str
    names: Names
    users: dict[str, str]  # short name -> broker user

    def connect(self, who: str) -> pika.BlockingConnection:
        user, url = self.users[who], urlparse(self.url)
        return pika.BlockingConnection(pika.ConnectionParameters(
            url.hostname, url.port or 5672, credentials=pika.PlainCredentials(user, password_for(SECRET, user))))

    def amqp_url(self, who: str) -> str:
        user, url = self.users[who], urlparse(self.url)
        return f"amqp://{quote(user, safe='')}:{password_for(SECRET, user)}@{url.hostname}:{url.port or 5672}/"

    def attempt(self, who: str, operation: Callable) -> tuple[int, str] | None:
        """Run `operation(channel)` as `who` on a confirming channel: None if allowed, else the
        broker's (reply code, text)."""
        conn = self.connect(who)
        try:
            channel = conn.channel()
            channel.confirm_delivery()
            operation(channel)
            return None
        except ChannelClosedByBroker as exc:
            return exc.reply_code, exc.reply_text
        finally:
            conn.close()


@pytest.fixture
def cluster(amqp_url, request):
    """A fresh cluster's users; marked `shared_plane` (a test whose operations are all refused, or
    read-only: it changes nothing on the broker), the module's one."""
    if request.node.get_closest_marker("shared_plane"):
        yield request.getfixturevalue("shared_cluster")
        return
    with _made(amqp_url) as made:
        yield made


@pytest.fixture(scope="module")
def shared_cluster(amqp_url):
    with _made(amqp_url) as made:
        yield made


@contextlib.contextmanager
def _made(amqp_url: str):
    names = Names(f"t{uuid.uuid4().hex[:10]}")
    users = {short: broker_user_of(names.cluster, role, name) for short, (role, name) in ROLES.items()}
    try:
        for short, (role, name) in ROLES.items():
            accounts.ensure_user(amqp_url, users[short], password_for(SECRET, users[short]))
            accounts.apply(amqp_url, users[short], permissions(names, role, name))
        _declare_shared(amqp_url, names)
        yield Cluster(amqp_url, names, users)
    finally:
        for user in users.values():
            accounts.delete_user(amqp_url, user)
        delete_topology(amqp_url, names.cluster)


def _declare_shared(url: str, names: Names) -> None:
    """What `kubus bootstrap` declares as the broker administrator."""
    conn = blocking(url)
    try:
        ch = conn.channel()
        for exchange, kind in ((names.api, "direct"), (names.store, "direct"), (names.events, "topic"),
                               (names.dead, "fanout")):
            ch.exchange_declare(exchange, kind, durable=True)
        ch.queue_declare(names.dead_queue, durable=True, arguments=dead_queue_arguments())
        ch.queue_bind(names.dead_queue, names.dead)
        for queue, exchange, key in ((names.store_queue, names.store, "store"),
                                     (names.apiserver_queue, names.api, "apiserver")):
            ch.queue_declare(queue, durable=True, arguments=request_queue_arguments(names))
            ch.queue_bind(queue, exchange, key)
    finally:
        conn.close()


def publish(exchange: str, key: str, mandatory: bool = False, **props) -> Callable:
    """A confirmed publish (the channel confirms): refused, or `mandatory` and unroutable, raises."""
    return lambda ch: ch.basic_publish(exchange, key, b"x", pika.BasicProperties(**props), mandatory=mandatory)


def declare(queue: str, **kw) -> Callable:
    return lambda ch: ch.queue_declare(queue, **kw)


def bind(queue: str, exchange: str, key: str) -> Callable:
    return lambda ch: ch.queue_bind(queue, exchange, key)


def _is_refused(outcome, *words: str) -> bool:
    return outcome is not None and outcome[0] == REFUSED and outcome[1].startswith("ACCESS_REFUSED") and \
        all(w in outcome[1] for w in words)


# ---- the bootstrap itself -----------------------------------------------------------------------
def test_the_broker_holds_what_was_applied(cluster):
    c = cluster.names.cluster
    assert accounts.users_with_prefix(cluster.url, f"{c}.") == sorted(cluster.users.values())
    for short, (role, name) in ROLES.items():
        assert accounts.permissions_of(cluster.url, cluster.users[short]) == permissions(cluster.names, role, name)
    accounts.apply(cluster.url, cluster.users["alice"], permissions(cluster.names, "user", "alice"))  # idempotent
    assert accounts.delete_user(cluster.url, f"{c}.nobody") is False


@pytest.mark.shared_plane
def test_refusals_carry_the_brokers_text(cluster):
    with pytest.raises(accounts.AccountError, match="invalid_regexp") as err:
        accounts.set_permissions(cluster.url, cluster.users["bob"], "(", "^$", "^$")
    assert err.value.status == 400


# ---- identity ------------------------------------------------------------------------------------
@pytest.mark.shared_plane
@pytest.mark.parametrize("who,claimed", [("alice", "apiserver"), ("node-1", "node-2"), ("scheduler", "store")])
def test_a_forged_user_id_is_refused(cluster, who, claimed):
    outcome = cluster.attempt(who, publish(cluster.names.api, "apiserver", user_id=cluster.users[claimed]))
    assert outcome == (PRECONDITION, f"PRECONDITION_FAILED - user_id property set to '{cluster.users[claimed]}' "
                                     f"but authenticated user was '{cluster.users[who]}'")


def test_the_own_user_id_passes(cluster):
    assert cluster.attempt("alice", publish(cluster.names.api, "apiserver", user_id=cluster.users["alice"])) is None


# ---- who writes what -----------------------------------------------------------------------------
@pytest.mark.shared_plane
@pytest.mark.parametrize("who", ["alice", "builder", "scheduler", "rs", "node-1", "hollow", "store"])
def test_only_apiservers_write_the_store_exchange(cluster, who):
    assert _is_refused(cluster.attempt(who, publish(cluster.names.store, "store")), f"exchange '{cluster.names.store}'")


@pytest.mark.shared_plane
@pytest.mark.parametrize("who", ["alice", "builder", "scheduler", "rs", "node-1", "hollow", "apiserver"])
def test_only_the_store_writes_events(cluster, who):
    outcome = cluster.attempt(who, publish(cluster.names.events, "pod.default.node-1"))
    assert _is_refused(outcome, f"exchange '{cluster.names.events}'")


def test_the_store_publishes_events_and_apiservers_commands(cluster):
    names = cluster.names
    assert cluster.attempt("store", publish(names.events, "pod.default.node-1", user_id=cluster.users["store"])) is None
    assert cluster.attempt("apiserver", publish(names.store, "store", True, user_id=cluster.users["apiserver"])) is None
    assert _queue_user_ids(cluster, names.store_queue) == [cluster.users["apiserver"]]


@pytest.mark.shared_plane
@pytest.mark.parametrize("who", ["alice", "builder", "scheduler"])
def test_who_answers_nobody_cannot_use_the_default_exchange(cluster, who):
    outcome = cluster.attempt(who, publish("", "amq.rabbitmq.reply-to.g1h2AA5yZXBseUAxAAAAAAAAAAAAAAA"))
    assert _is_refused(outcome, "exchange 'amq.default'")


# ---- locks and shared names ----------------------------------------------------------------------
@pytest.mark.shared_plane
@pytest.mark.parametrize("who", ["apiserver", "scheduler", "rs", "node-1", "hollow", "alice", "builder"])
def test_only_the_store_takes_its_lock(cluster, who):
    lock = f"{cluster.names.store_queue}.lock"
    assert _is_refused(cluster.attempt(who, declare(lock, exclusive=True, auto_delete=True)), f"queue '{lock}'")


def test_the_store_takes_its_lock_and_consumes_its_queue(cluster):
    names = cluster.names

    def take(ch) -> None:
        ch.queue_declare(f"{names.store_queue}.lock", exclusive=True, auto_delete=True)
        ch.basic_consume(names.store_queue, lambda *_: None)

    assert cluster.attempt("store", take) is None


@pytest.mark.shared_plane
@pytest.mark.parametrize("who", ["apiserver", "scheduler", "node-1", "alice"])
def test_only_store_processes_consume_the_store_queue(cluster, who):
    outcome = cluster.attempt(who, lambda ch: ch.basic_consume(cluster.names.store_queue, lambda *_: None))
    assert _is_refused(outcome, f"queue '{cluster.names.store_queue}'")


@pytest.mark.shared_plane
@pytest.mark.parametrize("who", list(ROLES))
@pytest.mark.parametrize("operation", ["declare-exchange", "delete-exchange", "delete-queue"])
def test_nobody_but_the_admin_configures_shared_names(cluster, who, operation):
    names = cluster.names
    act = {"declare-exchange": lambda ch: ch.exchange_declare(names.api, "direct", durable=True),
           "delete-exchange": lambda ch: ch.exchange_delete(names.events),
           "delete-queue": lambda ch: ch.queue_delete(names.apiserver_queue)}[operation]
    assert _is_refused(cluster.attempt(who, act))


@pytest.mark.shared_plane
@pytest.mark.parametrize("who", list(ROLES))
def test_passive_declares_need_no_permission(cluster, who):
    names = cluster.names

    def passive(ch) -> None:
        for exchange in (names.api, names.store, names.events, names.dead):
            ch.exchange_declare(exchange, passive=True)
        for queue in (names.apiserver_queue, names.store_queue, names.dead_queue):
            ch.queue_declare(queue, passive=True)

    assert cluster.attempt(who, passive) is None


# ---- people ---------------------------------------------------------------------------------------
@pytest.mark.shared_plane
@pytest.mark.parametrize("operation", [
    pytest.param(lambda n: declare(watch_queue(n, "alice", "1")), id="declare-own-watch-name"),
    pytest.param(lambda n: declare("", exclusive=True), id="declare-server-named"),
    pytest.param(lambda n: bind(n.apiserver_queue, n.api, "logs.node-1"), id="bind-apiserver-queue"),
    pytest.param(lambda n: lambda ch: ch.queue_purge(n.apiserver_queue), id="purge-apiserver-queue"),
    pytest.param(lambda n: lambda ch: ch.queue_delete(n.apiserver_queue), id="delete-apiserver-queue"),
    pytest.param(lambda n: lambda ch: ch.basic_consume(n.apiserver_queue, lambda *_: None), id="consume-requests"),
    pytest.param(lambda n: lambda ch: ch.basic_get(n.dead_queue), id="read-dead-letters"),
])
@pytest.mark.parametrize("who", ["alice", "builder"])
def test_a_person_only_asks(cluster, who, operation):
    assert _is_refused(cluster.attempt(who, operation(cluster.names)))


def test_a_person_consumes_the_watch_queue_an_apiserver_made_but_cannot_bind_it(cluster):
    names = cluster.names
    queue = watch_queue(names, "alice", f"pods.{uuid.uuid4().hex[:12]}")

    def make(ch) -> None:
        ch.queue_declare(queue, arguments={**event_queue_arguments(names), "x-expires": 60_000})
        ch.queue_bind(queue, names.events, "pod.team-a.*")

    assert cluster.attempt("apiserver", make) is None
    assert cluster.attempt("store", publish(names.events, "pod.team-a.-", user_id=cluster.users["store"])) is None
    got = []
    assert cluster.attempt("alice", lambda ch: got.append(ch.basic_get(queue, auto_ack=True))) is None
    assert got[0][1].user_id == cluster.users["store"]
    assert _is_refused(cluster.attempt("alice", bind(queue, names.events, "pod.#")), f"queue '{queue}'")
    assert _is_refused(cluster.attempt("alice", lambda ch: ch.queue_delete(queue)), f"queue '{queue}'")
    assert _is_refused(cluster.attempt("bob", lambda ch: ch.basic_get(queue)), f"queue '{queue}'")


def test_direct_reply_to_works_for_a_person(cluster):
    names = cluster.names
    conn = cluster.connect("alice")
    replies = []
    try:
        ch = conn.channel()
        ch.basic_consume("amq.rabbitmq.reply-to", lambda _c, _m, props, body: replies.append((props, body)),
                         auto_ack=True)
        ch.basic_publish(names.api, "apiserver", b"ping", pika.BasicProperties(
            reply_to="amq.rabbitmq.reply-to", correlation_id="1", user_id=cluster.users["alice"]))
        request = wait_until(lambda: _get_one(cluster, "apiserver", names.apiserver_queue), 10, what="the request")
        assert request[0].user_id == cluster.users["alice"]
        assert cluster.attempt("apiserver", publish("", request[0].reply_to, correlation_id="1")) is None
        wait_until(lambda: conn.process_data_events(time_limit=0.1) or replies, 10, what="the reply")
    finally:
        conn.close()
    assert replies[0][0].correlation_id == "1"


# ---- kubelets -------------------------------------------------------------------------------------
def test_a_kubelet_binds_only_its_own_node(cluster):
    names = cluster.names
    queue = names.actor_queue("kubelet.node-1")
    own = declare(queue, durable=True, arguments=event_queue_arguments(names))
    assert cluster.attempt("node-1", lambda ch: [own(ch), bind(queue, names.events, "pod.*.node-1")(ch),
                                                 bind(queue, names.events, "node.-.node-1")(ch)]) is None
    for key in ("pod.*.node-2", "pod.#", "#", "node.-.*"):
        assert _is_refused(cluster.attempt("node-1", bind(queue, names.events, key)),
                           f"topic '{key}' in exchange '{names.events}'")
    assert _is_refused(cluster.attempt("node-2", bind(queue, names.events, "pod.*.node-2")), f"queue '{queue}'")
    assert _is_refused(cluster.attempt("node-1", declare(names.actor_queue("kubelet.node-2"))))


def test_the_hollow_kubelet_binds_any_nodes_keys_but_not_everything(cluster):
    names = cluster.names
    queue = names.actor_queue("kubelet.hollow")
    assert cluster.attempt("hollow", lambda ch: [declare(queue, durable=True, arguments=event_queue_arguments(names))(ch),
                                                 bind(queue, names.events, "pod.*.hollow-3")(ch)]) is None
    assert _is_refused(cluster.attempt("hollow", bind(queue, names.events, "pod.#")), "topic 'pod.#'")


# ---- singletons and the management API -----------------------------------------------------------
def test_a_singleton_declares_its_queue_and_lock_and_nobody_reads_the_management_api(cluster):
    names = cluster.names
    queue = names.actor_queue("controller.replicaset")

    def start(ch) -> None:
        ch.queue_declare(f"{queue}.lock", exclusive=True, auto_delete=True)
        ch.queue_declare(queue, durable=True, arguments={**event_queue_arguments(names), "x-single-active-consumer": True})
        ch.queue_bind(queue, names.events, "replicaset.#")
        ch.basic_consume(queue, lambda *_: None)

    assert cluster.attempt("rs", start) is None
    if not management_answers(cluster.url):
        pytest.skip("no management API")
    listed = admin.queue_bindings(cluster.url, queue)  # as the administrator
    assert ("replicaset.#" in {b.routing_key for b in listed if b.exchange == names.events})
    for who in ("rs", "alice"):  # no management tag: actors remember their bindings (bus.declare)
        with pytest.raises(admin.AdminError, match="401"):
            admin.queue_bindings(cluster.amqp_url(who), queue)


def test_a_dead_letter_exchange_costs_write_on_it_and_read_on_the_queue(cluster):
    names = cluster.names
    queue, lock = names.actor_queue("scheduler"), f"{names.actor_queue('scheduler')}.lock"
    assert _is_refused(cluster.attempt("scheduler", declare(queue, arguments={"x-dead-letter-exchange": names.store})),
                       f"exchange '{names.store}'")
    assert _is_refused(cluster.attempt("scheduler", declare(lock, exclusive=True, arguments={
        "x-dead-letter-exchange": names.dead})), f"queue '{lock}'")  # configure alone is not enough
    assert cluster.attempt("scheduler", declare(queue, durable=True, arguments={"x-dead-letter-exchange": names.dead})) is None


# ---- what the broker lets through anyway (findings the receivers must cover) ------------------
def test_finding_the_default_exchange_reaches_any_queue(cluster):
    """Write on `amq.default` (needed to answer over direct reply-to) reaches every queue by name:
    a kubelet can drop an anonymous message into `{c}.store`. Receivers must check `user_id`."""
    names = cluster.names
    assert cluster.attempt("node-1", publish("", names.store_queue, True)) is None
    assert _queue_user_ids(cluster, names.store_queue) == [None]


def test_finding_a_consumer_can_purge_its_queue(cluster):
    """queue.purge needs only read: whoever consumes a shared queue can empty it."""
    assert cluster.attempt("apiserver", lambda ch: ch.queue_purge(cluster.names.apiserver_queue)) is None
    assert cluster.attempt("store", lambda ch: ch.queue_purge(cluster.names.store_queue)) is None


def _get_one(cluster: Cluster, who: str, queue: str):
    got = []
    cluster.attempt(who, lambda ch: got.append(ch.basic_get(queue, auto_ack=True)))
    return got[0][1:] if got and got[0][0] is not None else None


def _queue_user_ids(cluster: Cluster, queue: str) -> list[str | None]:
    """Drain `queue` as the admin: the user_id of each message."""
    conn = blocking(cluster.url)
    out = []
    try:
        ch = conn.channel()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            method, props, _ = ch.basic_get(queue, auto_ack=True)
            if method is None:
                break
            out.append(props.user_id)
    finally:
        conn.close()
    return out
