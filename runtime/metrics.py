"""The actors' Prometheus metrics (the bus keeps its own in `bus.metrics`) and the endpoint that
serves them. Kubernetes' names where Kubernetes has the metric; kubus's own start with `kubus_`.
Label values come from bounded sets only: a kind kubus does not store is `""`, never the name sent."""
from __future__ import annotations

import collections
import gc
import os
import time
from pathlib import Path
from typing import Any, Callable, Iterable

import structlog
from prometheus_client import Counter, Gauge, Histogram, start_http_server

from api.registry import known, lookup

log = structlog.get_logger("metrics")
LATENCY = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
COUNTS = tuple(2 ** i for i in range(12))  # 1 .. 2048
PENDING_QUEUES = ("active", "backoff", "unschedulable")


class _Lazy:
    """A metric made on first use, so a process exports only the metrics of the actor it runs (an
    unlabelled gauge would otherwise read 0 in every other actor)."""

    def __init__(self, make: Callable[[], Any]):
        self._make, self._metric = make, None

    def __getattr__(self, name: str) -> Any:
        if self._metric is None:
            self._metric = self._make()
        return getattr(self._metric, name)


def _lazy(kind: type, name: str, text: str, labels: Iterable[str] = (), **kw: Any) -> Any:
    return _Lazy(lambda: kind(name, text, labels, **kw))


API_REQUESTS = _lazy(Counter, "apiserver_request", "Requests by verb, resource and reply code (\"\": handed to "
                     "the store, which answers the client itself).", ["verb", "resource", "code"])
API_SECONDS = _lazy(Histogram, "apiserver_request_duration_seconds", "Seconds from a request's arrival to its "
                    "answer, or to its hand-over to the store.", ["verb", "resource"], buckets=LATENCY)

SCHEDULER_PENDING = _lazy(Gauge, "scheduler_pending_pods", "Pending pods by queue (active, backoff, "
                          "unschedulable).", ["queue"])
SCHEDULER_ATTEMPTS = _lazy(Counter, "scheduler_schedule_attempts", "Scheduling attempts by result (scheduled, "
                           "unschedulable, error) and profile.", ["result", "profile"])
SCHEDULER_SECONDS = _lazy(Histogram, "scheduler_scheduling_attempt_duration_seconds", "Seconds of an attempt: "
                          "the scheduling cycle, and for a scheduled pod its binding.", ["result", "profile"],
                          buckets=LATENCY)

KUBELET_RUNNING_PODS = _lazy(Gauge, "kubelet_running_pods", "Pods with a running container, over this process's "
                             "nodes.")

STORE_REVISION = _lazy(Gauge, "kubus_store_revision", "The store's revision (the last committed change).")
STORE_COMMIT_SECONDS = _lazy(Histogram, "kubus_store_commit_duration_seconds", "Seconds from applying a batch of "
                             "commands to its transaction being on disk.", buckets=LATENCY)
STORE_BATCH_SIZE = _lazy(Histogram, "kubus_store_batch_size", "Commands per committed transaction (group commit).",
                         buckets=COUNTS)
STORE_DB_BYTES = _lazy(Gauge, "kubus_store_db_size_bytes", "Bytes of the store's database file and its WAL.")

GC_SECONDS = _lazy(Histogram, "python_gc_duration_seconds", "Seconds of each run of the cyclic garbage collector, "
                   "by generation (2: a full collection); the process stands still meanwhile.", ["generation"],
                   buckets=LATENCY)

INFORMER_RESYNCS = Counter("kubus_informer_resyncs", "Local caches resynced from a snapshot, by why (gap, "
                           "queue_lost).", ["reason"])
WORKQUEUE_DEPTH = Gauge("workqueue_depth", "Keys waiting in a work queue.", ["name"])
WORKQUEUE_ADDS = Counter("workqueue_adds", "Keys added to a work queue.", ["name"])

_requests: dict[tuple[str, str, str], tuple] = {}  # (verb, resource, code) -> its counter and histogram
_attempts: dict[tuple[str, str], tuple] = {}  # (result, profile) -> its counter and histogram, looked up once


def serve(port: int) -> None:
    """`/metrics` on 127.0.0.1:`port`, from a daemon thread. A port in use costs the metrics, not the actor."""
    try:
        start_http_server(port, addr="127.0.0.1")
    except OSError as exc:
        log.error("metrics.serve_failed", port=port, error=str(exc))
        return
    log.info("metrics.serving", address=f"http://127.0.0.1:{port}/metrics")


def resource_of(kind: str | None) -> str:
    """The plural a kind is stored as (`pods`); "" for anything else."""
    return lookup(kind).plural if kind and known(kind) else ""


def _counted(made: dict, key: tuple, counter, histogram, seconds: float) -> None:
    """Count one and observe its seconds (the histogram labelled by the key's first two values), each
    child metric looked up once per label values: prometheus_client's labels() costs more than the
    rest of a request's bookkeeping."""
    pair = made.get(key)
    if pair is None:
        pair = made[key] = (counter.labels(*key), histogram.labels(*key[:2]))
    pair[0].inc()
    pair[1].observe(seconds)


def api_request(req, code: str, started: float) -> None:
    """One request answered (or forwarded: code ""); `req` None when it did not parse."""
    key = (req.verb, resource_of(req.kind), code) if req is not None else ("", "", code)
    _counted(_requests, key, API_REQUESTS, API_SECONDS, time.monotonic() - started)


def scheduling_attempt(result: str, profile: str, seconds: float) -> None:
    _counted(_attempts, (result, profile), SCHEDULER_ATTEMPTS, SCHEDULER_SECONDS, seconds)


def pending_pods(places: Iterable[str]) -> None:
    """`scheduler_pending_pods` from where each queued pod is (pods in flight are not pending)."""
    counts = collections.Counter(places)
    for queue in PENDING_QUEUES:
        SCHEDULER_PENDING.labels(queue).set(counts[queue])


class _Collections:
    """A gc callback: each collection's seconds into GC_SECONDS (a few per second at most)."""

    def __init__(self) -> None:
        self.started = 0.0
        self.children = [GC_SECONDS.labels(str(g)) for g in range(3)]

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
        else:
            self.children[info["generation"]].observe(time.perf_counter() - self.started)


def time_collections() -> None:
    """Observe this process's garbage collections from now on (once)."""
    if not any(isinstance(cb, _Collections) for cb in gc.callbacks):
        gc.callbacks.insert(0, _Collections())  # first: the policy's callbacks are not timed as collection


def store_committed(commands: int, seconds: float) -> None:
    STORE_BATCH_SIZE.observe(commands)
    STORE_COMMIT_SECONDS.observe(seconds)


def watch_store(revision: Callable[[], int], db: Path | None) -> None:
    """The store's gauges, read when scraped: its revision, and the size of its SQLite database with
    the database's WAL (0 without a file: the in-memory backend)."""
    STORE_REVISION.set_function(revision)
    files = (db, Path(f"{db}-wal")) if db else ()
    STORE_DB_BYTES.set_function(lambda: sum(_size(p) for p in files))


def _size(path: Path) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
