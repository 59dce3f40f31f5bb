"""The cluster's shared names, declared once by the bootstrap administrator (contract 5): the five
exchanges and the queues `{c}.dead`, `{c}.apiserver` and `{c}.store`. Actors do not declare them
again (that needs the configure permission, which also allows deleting them)."""
from __future__ import annotations

import pika

from bus.declare import DEFAULT_BOUNDS, Bounds, QueueSpec, apiserver_queue, dead_queue_arguments, queue_arguments, \
    store_queue
from bus.topology import Names
from config.urls import split

EXCHANGES = (("api", "direct"), ("store", "direct"), ("events", "topic"), ("streams", "direct"), ("dead", "fanout"))


def declare_shared(admin_url: str, names: Names, bounds: Bounds = DEFAULT_BOUNDS) -> None:
    """Idempotent: declaring what exists with the same arguments changes nothing."""
    connection = pika.BlockingConnection([pika.URLParameters(url) for url in split(admin_url)])
    try:
        channel = connection.channel()
        for attr, kind in EXCHANGES:
            channel.exchange_declare(getattr(names, attr), kind, durable=True)
        channel.queue_declare(names.dead_queue, durable=True, arguments=dead_queue_arguments(bounds))
        channel.queue_bind(names.dead_queue, names.dead, routing_key="")
        for spec in (apiserver_queue(names, bounds), store_queue(names, bounds)):
            _declare(channel, names, spec, bounds)
    finally:
        connection.close()


def _declare(channel, names: Names, spec: QueueSpec, bounds: Bounds) -> None:
    channel.queue_declare(spec.name, durable=spec.durable, arguments=queue_arguments(names, spec, bounds))
    for exchange, key in spec.bindings:
        channel.queue_bind(spec.name, exchange, routing_key=key)
