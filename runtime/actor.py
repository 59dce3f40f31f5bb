"""The actor base: one process, one mailbox (pika's ioloop), handlers, timers, SIGTERM drain.

A subclass lists the queues it consumes with a handler each, and reacts in small handlers that
never block; the base owns the connection, decoding, dead-lettering, acks and shutdown.
"""
from __future__ import annotations

import signal
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable

import structlog

from bus import codec, side
from bus.connection import INTERNAL_ERROR, Bus
from bus.declare import Bounds, QueueSpec, declare_queue
from bus.message import Message
from bus.replyto import TrustedNodes
from bus.rpc import RpcClient
from bus.silence import went_silent
from bus.dead import dead_letter
from bus.topology import Names
from config.settings import Settings
from runtime import heap, logs, metrics
from runtime.cache import Delta
from runtime.informer import Informer
from runtime.replies import ReplyConnection
from runtime.talking import Talking

Handler = Callable[[Message], None]
LOCK_RETRY_S = 0.5
OFFLOAD_THREADS = 8


@dataclass(frozen=True)
class Consumer:
    spec: QueueSpec
    handler: Handler
    prefetch: int
    batch: bool = False  # bodies may be lists of maps (wire v2 batches)
    undecodable: Callable[[Message, codec.DecodeError], None] | None = None  # told before one is dead-lettered


class Actor(Talking):
    """Subclasses set `name` and override `consumers()` and the `on_*` hooks."""

    name = "actor"
    singleton = False  # only the holder of the `{c}.<name>.lock` queue works; others wait as standbys

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.time):
        self.settings = settings
        self.names = Names(settings.cluster)
        self.bounds = Bounds.of(settings)  # every declarer of a queue declares it with the same limits
        self.clock = clock
        logs.configure(settings.log_level)
        self.log = structlog.get_logger(self.name).bind(actor=self.name)
        self.bus = Bus(settings.amqp_url, self.connection_name, self.name, self._on_ready, self._on_lost,
                       heartbeat=settings.heartbeat_s, quorum=settings.queue_type == "quorum")
        self.rpc = RpcClient(self.bus, settings.max_message_bytes, max_depth=settings.max_depth)
        self.trusted = TrustedNodes()  # nodes this actor's own connection may answer (bus/replyto.py)
        self.replies = ReplyConnection(settings.amqp_url, settings.heartbeat_s, self.connection_name, self.name,
                                       self.trusted)
        self._tags: list[str] = []
        self._informers: list[Informer] | None = None  # made once: their caches outlive reconnects
        self._extra_informers: list[Informer] = []  # added while running (add_informer)
        self._unsynced = 0
        self.draining = False
        self.active = not self.singleton
        self._standby_logged = False
        self._pool: ThreadPoolExecutor | None = None

    @property
    def connection_name(self) -> str:
        return self.name

    # ---- hooks -----------------------------------------------------------------------------
    def consumers(self) -> list[Consumer]:
        return []

    def informers(self) -> list[tuple[QueueSpec, Callable[[Delta], None]]]:
        """Local caches to keep: a queue spec (bound to `{c}.events`) and a handler of deltas each."""
        return []

    def declarations(self) -> list[QueueSpec]:
        """Queues to declare but not consume."""
        return []

    def snapshot_route(self):
        """Where this actor's informers ask for snapshots (None: the apiservers)."""
        return None

    def on_active(self) -> None:
        """A singleton became the active instance (before it consumes anything). State kept from
        informer deltas may be reset here: the informers then hand every cached object again (ADDED)
        and DELETED for what vanished meanwhile."""

    def on_ready(self) -> None:
        """After every (re)connect, once the queues are declared and consumed."""

    def on_synced(self) -> None:
        """Every informer has loaded its first snapshot."""

    def on_lost(self) -> None:
        """The connection dropped; the bus reconnects by itself."""

    def on_drain(self, done: Callable[[], None]) -> None:
        """Consumption has stopped: finish what is in hand, then call `done`."""
        done()

    # ---- running ---------------------------------------------------------------------------
    def run(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: self.bus.call_soon(self.drain))
        self.log.info("actor.starting", cluster=self.settings.cluster)
        heap.configure()
        if self.settings.metrics_port:
            metrics.time_collections()
            metrics.serve(self.settings.metrics_port)
        self.bus.run_forever()
        self.log.info("actor.stopped")

    def drain(self) -> None:
        if self.draining:
            return
        self.draining = True
        self.log.info("actor.draining")
        for tag in self._tags:
            self.bus.cancel_consumer(tag)
        self._tags = []
        for informer in [*(self._informers or ()), *self._extra_informers]:
            informer.stop()
        self.on_drain(lambda: self.bus.confirmed(self._stop))

    def _stop(self) -> None:
        self.replies.stop(then=self.bus.stop)

    def _on_ready(self, bus: Bus) -> None:
        for spec in self.declarations():
            declare_queue(bus, self.names, spec, lambda: None, bounds=self.bounds)
        self.rpc.setup()
        self._tags = []
        if self.singleton:
            self.active = False
            self._try_lock()
        else:
            self._start(replay=False)

    # ---- singletons: one active instance, the others hot standbys ----------------------------
    def _try_lock(self) -> None:
        if self.bus.channel is None or self.draining:
            return
        side.try_exclusive(self.bus, f"{self.names.actor_queue(self.name)}.lock", self._on_lock)

    def _on_lock(self, held: bool) -> None:
        """A retry belongs to the connection that was refused; a second grant on one connection (an
        exclusive queue is its owner's to declare again) changes nothing: a store that became active
        twice claimed the log twice and deposed itself."""
        if not held:
            if not self._standby_logged:
                self.log.info("actor.standby", lock=f"{self.names.actor_queue(self.name)}.lock")
                self._standby_logged = True
            generation = self.bus.generation
            self.bus.call_later(LOCK_RETRY_S, lambda: generation == self.bus.generation and self._try_lock())
            return
        if self.active:
            return
        self.active = True
        self.on_active()
        self._start(replay=True)

    def _start(self, replay: bool) -> None:
        consumers = self.consumers()
        remaining = [len(consumers)]

        def started() -> None:
            remaining[0] -= 1
            if remaining[0] == 0:
                self.on_ready()

        for consumer in consumers:
            self.start_consumer(consumer, started)
        self._start_informers(replay)
        if not consumers:
            self.on_ready()

    def _start_informers(self, replay: bool) -> None:
        """Made on the first start; started again (the cache kept, resynced) on every later one."""
        if self._informers is None:
            self._informers = [self._informer(spec, handler) for spec, handler in self.informers()]
        self._unsynced = len(self._informers)
        for informer in self._informers:
            informer.start(replay=replay)
        for informer in self._extra_informers:
            informer.start(replay=replay)

    def _informer(self, spec: QueueSpec, handler: Callable[[Delta], None], on_synced=None) -> Informer:
        return Informer(self.bus, self.rpc, self.names, spec, handler, owner=self.name,
                        max_bytes=self.settings.max_message_bytes, max_depth=self.settings.max_depth,
                        timeout=self.settings.request_timeout_s, prefetch=self.settings.prefetch, bounds=self.bounds,
                        on_synced=on_synced or self._informer_synced, clock=time.monotonic,
                        snapshot_route=self.snapshot_route())

    def add_informer(self, spec: QueueSpec, handler: Callable[[Delta], None],
                     on_synced: Callable[[], None] = lambda: None) -> None:
        """One more cache, started now (a custom kind a controller follows from when its CRD is Established);
        it is started again on every later start, as the others are."""
        informer = self._informer(spec, handler, on_synced)
        self._extra_informers.append(informer)
        if self.bus.channel is not None and not self.draining:
            informer.start(replay=True)

    def remove_informer(self, queue: str) -> None:
        """Stop the added cache consuming `queue` (its queue is auto-deleted with its consumer)."""
        for informer in [i for i in self._extra_informers if i.spec.name == queue]:
            self._extra_informers.remove(informer)
            informer.stop()

    def _informer_synced(self) -> None:
        self._unsynced -= 1
        if self._unsynced == 0:
            self.on_synced()

    def start_consumer(self, consumer: Consumer, then: Callable[[], None] = lambda: None) -> None:
        """Declare the consumer's queue and bindings, then consume it."""

        def declared() -> None:
            guarded = self._guard(consumer.handler, consumer.batch, consumer.undecodable)
            self._tags.append(self.bus.consume(consumer.spec.name, guarded, consumer.prefetch,
                                               exclusive=consumer.spec.exclusive))
            then()

        declare_queue(self.bus, self.names, consumer.spec, declared, bounds=self.bounds)

    def _on_lost(self) -> None:
        reason = self.bus.lost_reason
        if getattr(reason, "reply_code", None) == INTERNAL_ERROR or went_silent(reason):
            self.trusted.forget()  # a trusted node died or went silent (the other nodes will count it down soon,
            # and answering it then costs this connection): answers probe on the side again
        for informer in [*(self._informers or ()), *self._extra_informers]:
            informer.stop()  # nothing of theirs runs until the next start
        self.rpc.fail_all()
        self.on_lost()

    # ---- messages --------------------------------------------------------------------------
    def _guard(self, handler: Handler, batch: bool = False, undecodable=None) -> Handler:
        """Decode, then handle. Whatever happens, nothing raises into pika: one message never costs
        the connection."""

        def guarded(msg: Message) -> None:
            try:
                self._handle(handler, msg, batch, undecodable)
            except Exception:  # even dead-lettering failed: drop it (the queue's DLX takes it)
                self.log.exception("actor.guard_failed", routing_key=msg.routing_key)
                msg.drop()

        return guarded

    def _handle(self, handler: Handler, msg: Message, batch: bool, undecodable=None) -> None:
        try:
            msg.body = codec.decode(msg.raw, msg.headers, self.settings.max_message_bytes, self.settings.max_depth,
                                    batch=batch)
        except codec.DecodeError as exc:
            if undecodable is not None:
                undecodable(msg, exc)
            self.dead_letter(msg, exc.reason, exc.detail)
            return
        try:
            handler(msg)
        except Exception as exc:
            self._handler_failed(msg, exc)

    def _handler_failed(self, msg: Message, exc: Exception) -> None:
        """A bug or a poison message: retry once, then dead-letter with the reason; never a loop."""
        self.log.exception("actor.handler_failed", routing_key=msg.routing_key, redelivered=msg.redelivered)
        if msg.redelivered or msg.settled:
            self.dead_letter(msg, "poison", f"{type(exc).__name__}: {exc}")
        else:
            msg.requeue()

    def dead_letter(self, msg: Message, reason: str, detail: str) -> None:
        dead_letter(self.bus, self.names, msg, reason, detail, self.name)

    # ---- slow work ---------------------------------------------------------------------------
    def offload(self, work: Callable[[], Any], done: Callable[[Any], None]) -> None:
        """Run `work` on a worker thread; `done(result)` comes back on the mailbox thread."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=OFFLOAD_THREADS, thread_name_prefix=f"{self.name}-work")

        def finished(fut) -> None:
            if fut.exception() is not None:
                self.log.error("actor.offload_failed", error=repr(fut.exception()))
                return
            self.bus.call_soon(lambda: self._safe(done, "actor.offload_done_failed")(fut.result()))

        self._pool.submit(work).add_done_callback(finished)

    def _safe(self, fn: Callable[[Any], None], what: str) -> Callable[[Any], None]:
        """`fn` as a callback of the ioloop: an exception is logged, never raised into pika."""

        def call(arg: Any) -> None:
            try:
                fn(arg)
            except Exception:
                self.log.exception(what)

        return call

    # ---- timers ----------------------------------------------------------------------------
    def every(self, interval: float, fn: Callable[[], None]) -> None:
        """Run `fn` every `interval` seconds on the mailbox thread, for the life of the process."""

        def tick() -> None:
            try:
                fn()
            except Exception:
                self.log.exception("actor.timer_failed", timer=getattr(fn, "__name__", "?"))
            self.bus.call_later(interval, tick)

        self.bus.call_later(interval, tick)


def _request(body: dict[str, Any]) -> dict[str, Any]:
    """A request body with every field contract 2 names."""
    return {"namespace": None, "name": None, "object": None, "resourceVersion": None, "options": {}, **body}
