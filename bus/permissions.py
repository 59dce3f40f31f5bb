"""Least-privilege broker permissions of one cluster's users (contract 5), as data.

RabbitMQ checks three regexes per user (configure, write, read) against exchange and queue names,
unanchored, and per topic exchange two regexes against routing keys (write on publish, read on
queue.bind / unbind). What each AMQP operation costs, as measured on RabbitMQ 3.10.8
(tests/integration/test_broker_permissions.py proves it):

| operation | configure | write | read |
|---|---|---|---|
| exchange.declare / queue.declare, passive | — | — | — |
| queue.declare (not passive) | queue | | |
| … with `x-dead-letter-exchange` | queue | the DLX | queue |
| exchange.declare (not passive; even of an existing one) | exchange | | |
| queue.delete / exchange.delete | the name | | |
| queue.bind / unbind | | queue | exchange (+ topic read on the key) |
| basic.publish (the default exchange is `amq.default`) | | exchange (+ topic write on the key) | |
| basic.consume / basic.get / queue.purge | | | queue |
| basic.consume of `amq.rabbitmq.reply-to` | — | — | — |
| a reply to `amq.rabbitmq.reply-to.…` | | `amq.default` | |

So: publishing through the default exchange needs write on `amq.default` only, and reaches ANY
queue by name; whoever answers over direct reply-to holds it (store, apiservers, kubelets), so
the receivers of `{c}.store` commands, of events and of log requests must check the
broker-validated `user_id`. A passive declare reveals any queue's message and consumer counts.
A queue's consumer can purge it. Exchange and queue names share the regexes: `{c}.store` and
`{c}.dead` are both. Refusals close the channel: `403 ACCESS_REFUSED - access to queue '<q>' in
vhost '/' refused for user '<u>'` (3.10 names no permission), `… access to topic '<key>' in
exchange '<x>' …`; a forged `user_id` is `406 PRECONDITION_FAILED`.

Every regex is anchored `^(…)$` over names built from `Names` with `re.escape`; `^$` matches
nothing. `ROLES` below is the table; `permissions(names, role, name, nodes)` reads it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from bus.topology import Names, routing_key, segment
from config.identities import sa_username

NOTHING = "^$"
EVERYTHING = "^.*$"
DEFAULT_EXCHANGE = "amq.default"  # how the default exchange "" is checked
ID = r"[^.]+"  # a generated id: never a dot, so one name part


@dataclass(frozen=True)
class Permissions:
    """A broker user's regexes on the vhost, and per topic exchange its (write, read) regexes."""

    configure: str = NOTHING
    write: str = NOTHING
    read: str = NOTHING
    topics: dict[str, tuple[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class Grants:
    """Alternatives, each an already escaped regex fragment, joined into one anchored regex."""

    configure: tuple[str, ...] = ()
    write: tuple[str, ...] = ()
    read: tuple[str, ...] = ()
    events: tuple[str, str] = (NOTHING, NOTHING)  # topic (write, read) on `{c}.events`


def anchored(fragments: tuple[str, ...]) -> str:
    """`^(a|b)$`, or `^$` for none."""
    return f"^({'|'.join(dict.fromkeys(fragments))})$" if fragments else NOTHING


def literal(*names: str) -> tuple[str, ...]:
    return tuple(re.escape(n) for n in names)


def watch_queue(names: Names, k8s_user: str, queue_id: str) -> str:
    """The queue an apiserver declares for a person's (or a SA's) watch: `Names.watch_prefix`
    (which ends in a hash of the exact user name and a dot) and a non-empty id."""
    if not queue_id:
        raise ValueError("a watch queue needs an id")
    return names.watch_prefix(k8s_user) + queue_id


def watch_queues_of(names: Names, k8s_user: str) -> str:
    """The regex fragment matching every watch queue of one Kubernetes user: the prefix has no dot
    before its last, so no other user's prefix starts with it."""
    return re.escape(names.watch_prefix(k8s_user)) + ".+"


# ---- what each role needs ------------------------------------------------------------------
def _common(names: Names) -> Grants:
    """Every actor: requests to `{c}.api`, dead letters to `{c}.dead` (consuming direct reply-to
    needs nothing)."""
    return Grants(write=literal(names.api, names.dead))


def _actor(names: Names, queues: tuple[str, ...], locks: tuple[str, ...], events_read: str,
           answers: bool = False) -> Grants:
    """An actor owning `queues` (declared with a DLX, bound to `{c}.events`, consumed) and `locks`
    (exclusive queues, declared only)."""
    base = _common(names)
    return Grants(configure=queues + locks,
                  write=base.write + queues + (literal(DEFAULT_EXCHANGE) if answers else ()),
                  read=base.read + queues + literal(names.events), events=(NOTHING, events_read))


def _store(names: Names, _name: str | None, _nodes: tuple[str, ...]) -> Grants:
    """`{c}.store.wal`: the replicated store's log, which only stores declare, append to and read;
    `{c}.store.replica`: where a store behind the log asks the one holding the lock for a copy."""
    wal, replica = names.store_wal, names.store_replica
    return Grants(configure=literal(f"{names.store_queue}.lock", wal, replica),
                  write=literal(names.events, names.dead, DEFAULT_EXCHANGE),
                  read=literal(names.store_queue, wal, replica), events=(EVERYTHING, NOTHING))


def _apiserver(names: Names, _name: str | None, _nodes: tuple[str, ...]) -> Grants:
    own = (re.escape(f"{names.apiserver_queue}.cache.") + ID, re.escape(f"{names.cluster}.watch.") + ID + r"\..+")
    base = _actor(names, own, (), EVERYTHING, answers=True)
    return Grants(configure=base.configure, write=base.write + literal(names.store),
                  read=base.read + literal(names.apiserver_queue), events=base.events)


def _singleton(names: Names, actor: str) -> Grants:
    queue = names.actor_queue(actor)
    return _actor(names, literal(queue), literal(f"{queue}.lock"), EVERYTHING)


def _scheduler(names: Names, _name: str | None, _nodes: tuple[str, ...]) -> Grants:
    """`{c}.scheduler`, or `{c}.scheduler-<name>` for a scheduler started with `--name` (another
    profile's, or racing ones in tests), and their locks."""
    queue = re.escape(names.actor_queue("scheduler")) + r"(-[^.]+)?"
    return _actor(names, (queue,), (queue + r"\.lock",), EVERYTHING)


METRICS_SERVER = "metrics-server"  # its samples come through the default exchange; it answers apiservers itself


def _controller(names: Names, name: str | None, _nodes: tuple[str, ...]) -> Grants:
    grants = _singleton(names, f"controller.{name}")
    if name != METRICS_SERVER:
        return grants
    return Grants(configure=grants.configure, write=grants.write + literal(DEFAULT_EXCHANGE), read=grants.read,
                  events=grants.events)


def _networking(actor: str, kinds: tuple[str, ...]) -> Callable[[Names, str | None, tuple[str, ...]], Grants]:
    """An actor of which any number run (dns, proxy, ingress), each with its own cache queue `{c}.<actor>.<id>`
    bound to the events of `kinds`."""
    def grants(names: Names, _name: str | None, _nodes: tuple[str, ...]) -> Grants:
        queue = re.escape(names.actor_queue(f"{actor}.")) + ID
        return _actor(names, (queue,), (), anchored(tuple(re.escape(k) + r"\..+" for k in kinds)))
    return grants


SERVICES_KEY = "service.#"  # every kubelet: the Services its pods' environment variables come from
NAMESPACES_KEY = "namespace.#"  # every kubelet: a process-runtime node runs pods only of privileged namespaces


def kubelet_keys(nodes: tuple[str, ...]) -> tuple[str, ...]:
    """The `{c}.events` binding keys of a kubelet serving `nodes` (as `actors/kubelet` binds them)."""
    return tuple(k for n in nodes for k in (routing_key("pod", "*", n), routing_key("node", None, n))) + \
        (SERVICES_KEY, NAMESPACES_KEY)


def _node(names: Names, name: str | None, nodes: tuple[str, ...]) -> Grants:
    """A kubelet: its nodes' queues, `.logs` (requests an apiserver hands on), `.lock`, and the
    exclusive inboxes of its exec/attach/port-forward sessions, bound to `{c}.streams`."""
    served = nodes or (name,)
    queues = tuple(names.actor_queue(f"kubelet.{segment(n)}") for n in served)
    sessions = tuple(re.escape(f"{q}.stream.") + ID for q in queues)
    base = _actor(names, literal(*queues, *(f"{q}.logs" for q in queues)), literal(*(f"{q}.lock" for q in queues)),
                  anchored(literal(*kubelet_keys(served))), answers=True)
    return Grants(configure=base.configure + sessions, write=base.write + sessions,
                  read=base.read + sessions + literal(names.streams), events=base.events)


def _hollow(names: Names, _name: str | None, nodes: tuple[str, ...]) -> Grants:
    keys = anchored(literal(*kubelet_keys(nodes))) if nodes else r"^(pod\.\*|node\.-)\.[^.]+$|^service\.#$|^namespace\.#$"
    return _actor(names, (re.escape(names.actor_queue("kubelet.")) + ".+",), (), keys, answers=True)


def _client(names: Names, k8s_user: str) -> Grants:
    """A person or a pod's ServiceAccount: requests to `{c}.api`; consumes its watch queues (and
    direct reply-to); sends its exec sessions' frames to `{c}.streams`; configures nothing, binds nothing, reads no exchange, answers nobody."""
    return Grants(write=literal(names.api, names.streams), read=(watch_queues_of(names, k8s_user),))


def _person(names: Names, name: str | None, _nodes: tuple[str, ...]) -> Grants:
    return _client(names, name or "")


def _service_account(names: Names, name: str | None, _nodes: tuple[str, ...]) -> Grants:
    namespace, _, account = (name or "").partition(".")
    return _client(names, sa_username(namespace, account))


ROLES: dict[str, Callable[[Names, str | None, tuple[str, ...]], Grants]] = {
    "store": _store, "apiserver": _apiserver, "scheduler": _scheduler, "controller": _controller,
    "node": _node, "hollow": _hollow, "user": _person, "sa": _service_account,
    "dns": _networking("dns", ("service", "endpointslice", "namespace")),
    "proxy": _networking("proxy", ("service", "endpointslice")),
    "ingress": _networking("ingress", ("ingress", "ingressclass", "service", "endpointslice")),
}


def permissions(names: Names, role: str, name: str | None = None, nodes: tuple[str, ...] = ()) -> Permissions:
    """The permissions of a role's broker user (`name` as `config.identities.broker_user_of` takes
    it; `nodes`: the nodes a kubelet process serves, default its own; a hollow user without
    `nodes` may bind any node's keys)."""
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}; known: {', '.join(ROLES)}")
    grants = ROLES[role](names, name, tuple(nodes))
    return Permissions(anchored(grants.configure), anchored(grants.write), anchored(grants.read),
                       {names.events: grants.events})
