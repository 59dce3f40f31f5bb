"""The broker's side of the test kit (`testkit`): a plain connection, and removing a test
cluster's names so runs leave nothing behind. Here because only `bus` imports pika."""
from __future__ import annotations

import pika

from bus.topology import Names
from config.urls import first, management_base, split


def blocking(url: str) -> pika.BlockingConnection:
    """A connection to the first node of `url` that answers."""
    return pika.BlockingConnection([pika.URLParameters(one) for one in split(url)])


def cluster_queues(url: str, cluster: str, consumed: bool = False) -> list[str]:
    """Every queue of the cluster the management API lists (none when it is off); `consumed`: only
    those it lists with a consumer (its figures lag the queue by up to its stats interval)."""
    from urllib.parse import urlparse

    import requests

    parsed = urlparse(first(url))
    # without the consumers, the broker lists names alone: with them it computes every queue's statistics
    # (0.35 s of its CPU for a thousand queues, at each test's teardown)
    wanted = "columns=name,consumers" if consumed else "disable_stats=true&columns=name"
    try:
        listed = requests.get(f"{management_base(parsed)}queues?{wanted}",
                              auth=(parsed.username or "guest", parsed.password or "guest"), timeout=5).json()
    except Exception:
        return []
    return [q["name"] for q in listed if isinstance(q, dict) and q.get("name", "").startswith(f"{cluster}.")
            and (not consumed or q.get("consumers"))]


def delete_topology(url: str, cluster: str, queues: list[str] = ()) -> None:
    """Remove a test cluster's exchanges and queues, so runs leave nothing behind on the broker."""
    names = Names(cluster)
    conn = blocking(url)
    try:
        ch = conn.channel()
        known = [names.apiserver_queue, names.store_queue, names.dead_queue, *queues]
        for queue in dict.fromkeys(known + cluster_queues(url, cluster)):
            try:
                ch.queue_delete(queue)
            except pika.exceptions.ChannelClosedByBroker:  # an exclusive queue another connection still holds
                ch = conn.channel()
        for exchange in (names.api, names.store, names.events, names.streams, names.dead):
            ch.exchange_delete(exchange)
    finally:
        conn.close()
