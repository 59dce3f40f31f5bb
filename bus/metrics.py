"""The bus's own metrics. Every message in every actor passes here, so the counts are plain ints
(one attribute add on the ioloop thread; no lock, no label lookup) that a collector reads when
`/metrics` is scraped. Rare events (dead letters) use prometheus_client's counters directly."""
from __future__ import annotations

from prometheus_client import REGISTRY, Counter
from prometheus_client.core import CounterMetricFamily

COUNTS = {  # name (without `_total`) -> help
    "published": "Messages this process handed to the broker.",
    "confirmed": "Publishes the broker confirmed (ack).",
    "nacked": "Publishes the broker refused (nack: a full queue with reject-publish).",
    "returned": "Mandatory publishes the broker returned as unroutable.",
    "delivered": "Messages delivered to this process's consumers.",
    "redelivered": "Deliveries the broker flagged as redelivered.",
}


class BusStats:
    """Process-wide totals over every connection of the process. In CPython 3.11 an `a.b += 1`
    of ints does not let another thread in between its read and its write."""

    __slots__ = tuple(COUNTS)

    def __init__(self) -> None:
        for name in COUNTS:
            setattr(self, name, 0)

    def settled(self, ok: bool, count: int) -> None:
        """One confirm frame (`multiple` settles several publishes at once)."""
        if ok:
            self.confirmed += count
        else:
            self.nacked += count


STATS = BusStats()

DEAD_LETTERED = Counter("kubus_bus_dead_lettered", "Messages this process sent to `{c}.dead`, by reason.",
                        ["reason"])


class _Collector:
    def collect(self):
        for name, text in COUNTS.items():
            yield CounterMetricFamily(f"kubus_bus_{name}", text, value=getattr(STATS, name))


REGISTRY.register(_Collector())
