"""The loads of bench.scale: a filler (creates with a bounded number in flight over several Clients), an
open-loop pacer (requests on schedule, latency counted from when each was due) and a prober (the pacer
in a process of its own), with what they read of a reply."""
from __future__ import annotations

import gc
import math
import multiprocessing
import sys
import threading
import time
from typing import Callable

from bench.harness import progress, wait_for
from runtime import logs
from runtime.client import Client

TIMEOUT_S = 300.0  # requests and the big snapshot: the defaults (10 s) are too short at 100k pods


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(len(ordered) * p / 100) - 1)]


def ok(reply) -> bool:
    return isinstance(reply, dict) and bool(reply.get("ok"))


def why(reply) -> str:
    if isinstance(reply, dict):
        status = reply.get("status") or {}
        return f"{status.get('reason')}: {status.get('message')}"
    return repr(reply)


class Filler:
    """Creates objects with at most `inflight` requests outstanding, spread over several Clients."""

    def __init__(self, clients: list[Client], inflight: int):
        self.clients, self.inflight = clients, inflight

    def run(self, label: str, objects: Callable[[int], dict], total: int) -> tuple[float, list[str]]:
        """Seconds taken, and the resourceVersion each object was created with."""
        slots = threading.Semaphore(self.inflight)
        lock = threading.Lock()
        versions: list[str] = [""] * total
        failed: list[str] = []
        done = [0]
        tty = sys.stderr.isatty()
        started = time.monotonic()

        def finished(i: int, fut) -> None:
            reply = fut.result()
            if ok(reply):
                versions[i] = reply["object"]["metadata"]["resourceVersion"]
            else:
                failed.append(f"{label} {i}: {why(reply)}")
            with lock:
                done[0] += 1
                n = done[0]
            if not tty or n % 500 == 0 or n == total:
                progress(label, n, total, started)
            slots.release()

        for i in range(total):
            slots.acquire()
            if failed:
                break
            obj = objects(i)
            fut = self.clients[i % len(self.clients)].request_async(
                "create", obj["kind"], namespace=obj["metadata"].get("namespace"), obj=obj, timeout=TIMEOUT_S)
            fut.add_done_callback(lambda f, i=i: finished(i, f))
        for _ in range(self.inflight):  # every slot back: every reply is in
            slots.acquire()
        if failed:
            raise SystemExit(f"{len(failed)} creates failed, the first: {failed[0]}")
        return time.monotonic() - started, versions


class Paced(threading.Thread):
    """Sends `request(i)` at `rate` per second, open loop (on schedule, never waiting for replies),
    until `count` are sent or stop(); records (due, latency, ok) per request, latency from when it
    was due."""

    def __init__(self, request: Callable[[int], object], rate: float, count: int | None = None):
        super().__init__(daemon=True)
        self.request, self.rate, self.count = request, rate, count
        self.samples: list[tuple[float, float, bool]] = []
        self.errors: list[str] = []
        self.sent = 0
        self.stopping = threading.Event()
        self.started_at = 0.0

    def run(self) -> None:
        self.started_at = time.monotonic()
        i = 0
        while not self.stopping.is_set() and (self.count is None or i < self.count):
            due = self.started_at + i / self.rate
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            self.request(i).add_done_callback(lambda f, due=due: self._done(due, f))
            i += 1
            self.sent = i

    def _done(self, due: float, fut) -> None:
        reply = fut.result()
        good = ok(reply)
        if not good and len(self.errors) < 5:
            self.errors.append(why(reply))
        self.samples.append((due, time.monotonic() - due, good))

    def stop(self, timeout: float = TIMEOUT_S) -> None:
        self.stopping.set()
        self.join()
        wait_for(lambda: len(self.samples) >= self.sent, timeout, "every paced request's reply")

    def latencies(self, since: float = 0.0, until: float = math.inf) -> list[float]:
        return [lat for due, lat, good in self.samples if since <= due <= until and good]

    def failures(self) -> int:
        return sum(1 for _, _, good in self.samples if not good)


def _probe(settings, rate: float, pipe) -> None:
    """The prober's process: gets of one pod at `rate` until told to stop, then its samples. A process
    of its own, so the resync client's decoding (the bench's GIL) does not count in its latencies."""
    logs.configure("warning")
    client = Client(settings, name="bench scale prober")
    client.get("Pod", "scale-0", "default")
    quiet_gc()
    prober = Paced(lambda i: client.request_async("get", "Pod", namespace="default", name="scale-0",
                                                  timeout=TIMEOUT_S), rate)
    prober.start()
    pipe.send("started")
    pipe.recv()
    prober.stop()
    pipe.send((prober.samples, prober.errors))
    client.close()


class Prober:
    """`Paced` gets in a child process; its samples come back on stop()."""

    def __init__(self, settings, rate: float):
        ctx = multiprocessing.get_context("spawn")
        self.pipe, child = ctx.Pipe()
        self.proc = ctx.Process(target=_probe, args=(settings, rate, child), daemon=True)
        self.proc.start()
        if not self.pipe.poll(60):
            raise SystemExit("the prober did not start")
        self.pipe.recv()
        self.samples: list[tuple[float, float, bool]] = []
        self.errors: list[str] = []

    def stop(self) -> None:
        self.pipe.send("stop")
        self.samples, self.errors = self.pipe.recv()
        self.proc.join(10)

    latencies = Paced.latencies
    failures = Paced.failures


def quiet_gc() -> None:
    """Collect, then move every object the bench holds out of the collector's sight: a full collection
    of the bench's own heap would stall its sending and timing and be counted against the cluster."""
    gc.collect()
    gc.freeze()
