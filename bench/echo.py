"""The floor under every kubus write: round trips to an echo consumer behind one RabbitMQ queue,
answered over direct reply-to, on kubus's own `Bus` (pika, confirms, joined acks and writes).

    python -m bench.echo --inflight 64 --trips 20000 [--batch 16]

The echo does nothing but answer, so its figures are what contract 2's one-request-one-reply
costs before any kubus work. `--batch K` carries K requests in one message and K answers in one
reply (not what contract 2 allows today): what request and reply batches would save.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import Future

from bench.harness import ROOT, CpuMeter, broker_pid, progress, result_line, wait_for
from bus import codec, side
from bus.connection import Bus
from bus.replyto import DIRECT
from config.settings import Settings
from runtime import logs

PREFETCH = 256


def serve(queue: str) -> None:
    """The echo consumer: every request's body goes back to its reply address."""
    logs.configure("warning")
    bus = Bus(Settings().admin_url, "bench echo", "bench-echo", lambda b: b.consume(queue, on_request, PREFETCH))

    def on_request(msg) -> None:
        bus.publish("", msg.reply_to, msg.raw, type="reply", correlation_id=msg.correlation_id)
        msg.ack()

    bus.run_forever()


class Trips:
    """`inflight` requests (in messages of `batch`) always out; each answer sends the next."""

    def __init__(self, bus: Bus, queue: str, total: int, batch: int):
        self.bus, self.queue, self.total, self.batch = bus, queue, total, batch
        self.sent = self.done = 0
        self.finished = threading.Event()

    def send(self) -> None:
        count = min(self.batch, self.total - self.sent)
        if count <= 0:
            return
        self.sent += count
        self.bus.publish("", self.queue, {"n": list(range(count))}, type="request", reply_to=DIRECT,
                         correlation_id=uuid.uuid4().hex, mandatory=True)

    def on_reply(self, msg) -> None:
        self.done += len(codec.decode(msg.raw, msg.headers, 1 << 20)["n"])
        if self.done >= self.total:
            self.finished.set()
        self.send()


def consumers(bus: Bus, queue: str) -> int | None:
    """How many consumers `queue` has, asked on a side channel of the running `bus`."""
    answer: Future = Future()
    bus.call_soon(lambda: side.consumer_count(bus, queue, answer.set_result))
    return answer.result(10)


def run(inflight: int, total: int, batch: int) -> tuple[float, dict[str, float]]:
    queue = f"bench-echo-{uuid.uuid4().hex[:8]}"
    ready = threading.Event()
    client = Bus(Settings().admin_url, "bench echo client", "bench-echo", lambda b: b.consume_auto_ack(
        DIRECT, trips.on_reply, on_ok=ready.set))
    trips = Trips(client, queue, total, batch)
    client.start_thread()
    declared = threading.Event()
    client.call_soon(lambda: client.channel.queue_declare(queue, auto_delete=True, callback=lambda _f: declared.set()))
    if not declared.wait(10):
        raise SystemExit("the echo queue was not declared within 10 s")
    server = subprocess.Popen([sys.executable, "-m", "bench.echo", "--serve", queue], cwd=ROOT)
    try:
        wait_for(ready.is_set, 10, "the reply consumer")
        wait_for(lambda: consumers(client, queue), 30, "the echo process to consume")
        cpu = CpuMeter({"broker": broker_pid(), "echo": server.pid, "bench": os.getpid()})
        started = time.monotonic()
        for _ in range(max(1, inflight // batch)):
            client.call_soon(trips.send)
        wait_for(lambda: progress("echo", trips.done, total, started) or trips.finished.is_set(), 300, "every answer")
        return total / (time.monotonic() - started), cpu.per(total, "trip")
    finally:
        server.terminate()
        server.wait(10)
        client.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inflight", type=int, default=64, help="requests out at once")
    parser.add_argument("--trips", type=int, default=20000)
    parser.add_argument("--batch", type=int, default=1, help="requests per message (1: contract 2 today)")
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    args = parser.parse_args()
    logs.configure("warning")
    if args.serve:
        serve(args.serve)
        return
    rate, cpu = run(args.inflight, args.trips, args.batch)
    print(result_line(inflight=args.inflight, batch=args.batch, round_trips_per_s=rate, **cpu))


if __name__ == "__main__":
    main()
