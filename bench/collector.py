"""What the cyclic garbage collector cost each process of a run: the actors' `python_gc_duration_seconds`
read from their `/metrics` (each started on a port of its own), the load generator's from itself."""
from __future__ import annotations

import urllib.request

from prometheus_client.parser import text_string_to_metric_families

from testkit.hosts import free_port
from runtime import metrics

NAME = "python_gc_duration_seconds"


class Collections:
    """Metrics ports for the actors; at the end, per process, `<name>_gc_s` (seconds spent collecting)
    and `<name>_gc_longest_s` (the bucket bound the longest collection fell under: a pause)."""

    def __init__(self) -> None:
        self.ports: dict[str, int] = {}
        metrics.time_collections()  # the load generator's own

    def env(self, name: str) -> dict[str, str]:
        self.ports[name] = free_port()
        return {"KUBUS_METRICS_PORT": str(self.ports[name])}

    def figures(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for name, port in self.ports.items():
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
                families = list(text_string_to_metric_families(resp.read().decode()))
            out.update(_figures(name, [s for f in families if f.name == NAME for s in f.samples]))
        return {**out, **_figures("bench", [s for f in metrics.GC_SECONDS.collect() for s in f.samples])}


def _figures(name: str, samples: list) -> dict[str, float]:
    buckets: dict[float, float] = {}  # bound -> collections at most that long, every generation
    for s in samples:
        if s.name == f"{NAME}_bucket":
            bound = float(s.labels["le"])
            buckets[bound] = buckets.get(bound, 0.0) + s.value
    count = buckets.get(float("inf"), 0.0)
    longest = min(bound for bound, n in buckets.items() if n >= count) if count else 0.0
    return {f"{name}_gc_s": round(sum(s.value for s in samples if s.name == f"{NAME}_sum"), 2),
            f"{name}_gc_longest_s": longest}
