"""Declaring contract 1's topology. pika runs a channel's declarations in order, so a callback
on the last one means all are done."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from bus.connection import Bus
from bus.topology import Names


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

    def binding_keys(self, exchange: str) -> tuple[str, ...]:
        return tuple(key for ex, key in self.bindings if ex == exchange)


def declare_exchanges(bus: Bus, names: Names) -> None:
    channel = bus.channel
    channel.exchange_declare(names.api, "direct", durable=True)
    channel.exchange_declare(names.store, "direct", durable=True)
    channel.exchange_declare(names.events, "topic", durable=True)
    channel.exchange_declare(names.dead, "fanout", durable=True)
    channel.queue_declare(names.dead_queue, durable=True)
    channel.queue_bind(names.dead_queue, names.dead, routing_key="")


def declare_queue(bus: Bus, names: Names, spec: QueueSpec, on_done: Callable[[], None]) -> None:
    channel = bus.channel
    args = {"x-dead-letter-exchange": names.dead, **spec.arguments}
    if spec.single_active:
        args["x-single-active-consumer"] = True
    done = lambda _frame: on_done()  # noqa: E731
    last = len(spec.bindings) - 1
    channel.queue_declare(spec.name, durable=spec.durable, exclusive=spec.exclusive,
                          auto_delete=spec.auto_delete, arguments=args,
                          callback=done if last < 0 else None)
    for i, (exchange, key) in enumerate(spec.bindings):
        channel.queue_bind(spec.name, exchange, routing_key=key, callback=done if i == last else None)


def store_queue(names: Names) -> QueueSpec:
    """The store's command queue; apiservers declare it too, so commands wait while no store runs."""
    return QueueSpec(names.store_queue, ((names.store, "store"),), single_active=True)


def apiserver_queue(names: Names) -> QueueSpec:
    return QueueSpec(names.apiserver_queue, ((names.api, "apiserver"),))
