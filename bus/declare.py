"""Declaring contract 1's topology. pika runs a channel's declarations in order, so a callback
on the last one means all are done.

Every queue is bounded: `{c}.dead` keeps the newest dead letters; a queue bound to `{c}.events`
drops its oldest events into `{c}.dead` when full (the consumer's cache sees the gap and
resyncs); the request queues refuse new publishes when full, so the publisher is nacked.

On a RabbitMQ cluster (`queue_type: quorum`) every durable queue is a quorum queue, replicated to
the nodes, and a message redelivered `DELIVERY_LIMIT` times is dead-lettered (the request queues
at least once); exclusive and auto-delete queues stay classic: their consumer resyncs (contract 4).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Callable

import structlog

from bus.connection import Bus
from bus.topology import Names
from config.settings import Settings

log = structlog.get_logger("bus.declare")
_DEFAULTS = Settings.model_fields
DELIVERY_LIMIT = 5  # a quorum queue's redeliveries of one message before it is dead-lettered


@dataclass(frozen=True)
class QueueSpec:
    """A queue, its bindings and how it is consumed."""

    name: str
    bindings: tuple[tuple[str, str], ...] = ()  # (exchange, routing key)
    durable: bool = True
    exclusive: bool = False
    auto_delete: bool = False
    single_active: bool = False
    arguments: dict = field(default_factory=dict)
    shared: bool = False  # declared by `kubus bootstrap`: only checked (passively), never declared again

    def binding_keys(self, exchange: str) -> tuple[str, ...]:
        return tuple(key for ex, key in self.bindings if ex == exchange)


@dataclass(frozen=True)
class Bounds:
    """Queue limits, from the settings of the same names. Every declarer of a queue must use the
    same numbers: the broker refuses a re-declaration with other arguments."""

    dead_letter_max_length: int = _DEFAULTS["dead_letter_max_length"].default
    queue_max_bytes: int = _DEFAULTS["queue_max_bytes"].default
    request_queue_max_length: int = _DEFAULTS["request_queue_max_length"].default
    queue_type: str = _DEFAULTS["queue_type"].default

    @classmethod
    def of(cls, settings: Settings) -> "Bounds":
        return cls(settings.dead_letter_max_length, settings.queue_max_bytes, settings.request_queue_max_length,
                   settings.queue_type)

    def typed(self, args: dict, dead_letters: bool = True) -> dict:
        """`args` of a durable queue, made a quorum queue when the cluster's queues are."""
        if self.queue_type != "quorum":
            return args
        quorum = {"x-queue-type": "quorum"}
        if dead_letters:
            quorum["x-delivery-limit"] = DELIVERY_LIMIT
            if args.get("x-overflow") == "reject-publish":  # at-least-once needs it (RabbitMQ 3.10)
                quorum["x-dead-letter-strategy"] = "at-least-once"
        return {**args, **quorum}


DEFAULT_BOUNDS = Bounds()


def declare_exchanges(bus: Bus, names: Names, bounds: Bounds = DEFAULT_BOUNDS) -> None:
    channel = bus.channel
    channel.exchange_declare(names.api, "direct", durable=True)
    channel.exchange_declare(names.store, "direct", durable=True)
    channel.exchange_declare(names.events, "topic", durable=True)
    channel.exchange_declare(names.streams, "direct", durable=True)
    channel.exchange_declare(names.dead, "fanout", durable=True)
    channel.queue_declare(names.dead_queue, durable=True, arguments=dead_queue_arguments(bounds))
    channel.queue_bind(names.dead_queue, names.dead, routing_key="")


def dead_queue_arguments(bounds: Bounds = DEFAULT_BOUNDS) -> dict:
    """`{c}.dead` keeps the newest dead letters; it has no dead-letter exchange of its own."""
    return bounds.typed({"x-max-length": bounds.dead_letter_max_length, "x-overflow": "drop-head"},
                        dead_letters=False)


def event_queue_arguments(names: Names, bounds: Bounds = DEFAULT_BOUNDS) -> dict:
    """A queue bound to `{c}.events`: the oldest events overflow into `{c}.dead` (reason `maxlen`)."""
    return {"x-max-length-bytes": bounds.queue_max_bytes, "x-overflow": "drop-head",
            "x-dead-letter-exchange": names.dead}


def request_queue_arguments(names: Names, bounds: Bounds = DEFAULT_BOUNDS) -> dict:
    """`{c}.apiserver`, `{c}.store`: a full queue nacks the publisher instead of filling the broker."""
    return {"x-max-length": bounds.request_queue_max_length, "x-overflow": "reject-publish",
            "x-dead-letter-exchange": names.dead}


def queue_arguments(names: Names, spec: QueueSpec, bounds: Bounds = DEFAULT_BOUNDS) -> dict:
    """What `declare_queue` declares `spec` with: the dead-letter exchange, the event-queue bound
    when it binds `{c}.events`, single-active-consumer, the spec's own arguments, and for a durable
    queue the quorum type and delivery limit when the cluster's queues are quorum queues."""
    args = {"x-dead-letter-exchange": names.dead}
    if spec.binding_keys(names.events):
        args.update(event_queue_arguments(names, bounds))
    if spec.single_active:
        args["x-single-active-consumer"] = True
    args = {**args, **spec.arguments}
    return bounds.typed(args) if spec.durable and not spec.exclusive and not spec.auto_delete else args


def declare_queue(bus: Bus, names: Names, spec: QueueSpec, on_done: Callable[[], None],
                  bounds: Bounds = DEFAULT_BOUNDS) -> None:
    """Declare `spec` and bind it; then, for a durable queue bound to `{c}.events`, drop the bindings
    it no longer lists."""
    channel = bus.channel
    if spec.shared:  # declaring needs the configure permission, which also allows deleting it
        channel.queue_declare(spec.name, passive=True, callback=lambda _frame: on_done())
        return

    def done(_frame) -> None:
        on_done()
        if spec.durable and not spec.exclusive and spec.binding_keys(names.events):
            unbind_dropped(bus, spec)  # a consumer's cache queue, whose bindings change with its wants

    last = len(spec.bindings) - 1
    channel.queue_declare(spec.name, durable=spec.durable, exclusive=spec.exclusive,
                          auto_delete=spec.auto_delete, arguments=queue_arguments(names, spec, bounds),
                          callback=done if last < 0 else None)
    for i, (exchange, key) in enumerate(spec.bindings):
        channel.queue_bind(spec.name, exchange, routing_key=key, callback=done if i == last else None)


_BOUND: "weakref.WeakKeyDictionary[Bus, dict[str, frozenset[tuple[str, str]]]]" = weakref.WeakKeyDictionary()


def unbind_dropped(bus: Bus, spec: QueueSpec) -> None:
    """Unbind what this process bound to `spec`'s queue before and `spec` no longer lists (contract 4).
    Remembered, not asked: listing a queue's bindings takes the management API, whose tag shows every
    queue of the vhost to its holder. A binding left by an earlier process stays: a kubelet can only
    ever have bound its own node's keys (its topic permission), and the singletons' keys are their
    code's."""
    made = _BOUND.setdefault(bus, {})
    stale = made.get(spec.name, frozenset()) - set(spec.bindings)
    channel = bus.channel
    if stale and (channel is None or not channel.is_open):
        return  # the next connection declares, and unbinds, again
    made[spec.name] = frozenset(spec.bindings)
    for exchange, key in sorted(stale):
        log.info("bus.unbind", queue=spec.name, exchange=exchange, routing_key=key)
        channel.queue_unbind(spec.name, exchange, key)


def store_queue(names: Names, bounds: Bounds = DEFAULT_BOUNDS) -> QueueSpec:
    """The store's command queue (made by `kubus bootstrap`, so commands wait while no store runs)."""
    return QueueSpec(names.store_queue, ((names.store, "store"),), single_active=True,
                     arguments=request_queue_arguments(names, bounds), shared=True)


def apiserver_queue(names: Names, bounds: Bounds = DEFAULT_BOUNDS) -> QueueSpec:
    return QueueSpec(names.apiserver_queue, ((names.api, "apiserver"),),
                     arguments=request_queue_arguments(names, bounds), shared=True)
