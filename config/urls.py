"""Broker addresses. A URL setting may name several nodes of one RabbitMQ cluster, comma-separated
(`amqp://u:p@127.0.0.1:5701/,amqp://u:p@127.0.0.1:5702/`); a connection tries them in turn and
moves to the next node when one is lost. A node's management API is at its AMQP port + 10000
(5672 -> 15672, 5671 -> 15671 for `amqps`, 5701 -> 15701 on scripts/rabbit-cluster.sh's nodes)."""
from __future__ import annotations

from urllib.parse import ParseResult


def split(urls: str) -> list[str]:
    """Each node's URL, in the order given."""
    found = [url.strip() for url in urls.split(",") if url.strip()]
    if not found:
        raise ValueError("no broker URL given")
    return found


def first(urls: str) -> str:
    """The first node's URL: whom to ask what any node answers alike (users, the vhost)."""
    return split(urls)[0]


def prefer(urls: str, place: int) -> str:
    """The list with its `place`-th node (1-based) first and the others after it, in order: a host's
    actors connect to their own node and fail over to the rest."""
    nodes = split(urls)
    if not 1 <= place <= len(nodes):
        raise ValueError(f"broker {place}: the URL list has {len(nodes)} node(s)")
    return ",".join([nodes[place - 1]] + nodes[:place - 1] + nodes[place:])


def each(urls: str, change) -> str:
    """`change` applied to every node's URL, joined again."""
    return ",".join(change(url) for url in split(urls))


def management_base(url: ParseResult) -> str:
    """The management API's base URL of the node at `url`."""
    tls = url.scheme == "amqps"
    port = (url.port or (5671 if tls else 5672)) + 10000
    return f"{'https' if tls else 'http'}://{url.hostname or '127.0.0.1'}:{port}/api/"
