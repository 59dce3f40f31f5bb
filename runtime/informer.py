"""Feeds a local cache from the broker (contract 4): declare the queue and its bindings, load a
snapshot, then consume; on a gap, resync from a fresh snapshot and hand the handler exactly the
difference. Runs on the bus's ioloop thread.

One informer lives as long as its cache: after a reconnect it is started again, and the snapshot
is diffed against the kept cache, so the handler hears of what vanished meanwhile. Every start and
stop opens a new generation; a timer or a snapshot reply of an older one does nothing."""
from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any, Callable

import structlog

from api.status import StatusError
from bus import codec
from bus.connection import Bus
from bus.dead import dead_letter
from bus.declare import DEFAULT_BOUNDS, Bounds, QueueSpec, declare_queue
from bus.message import Message
from bus.messages import Bookmark, Event, parse_event
from bus.rpc import RpcClient, unwrap
from bus.topology import Names
from config.answerers import Answerers, api_answerers
from config.identities import broker_user_of
from runtime.cache import BadEvent, Cache, Delta, Gap, StaleSnapshot
from runtime.heap import freeze_survivors
from runtime.metrics import INFORMER_RESYNCS

log = structlog.get_logger("informer")
Declare = Callable[[QueueSpec, Callable[[], None]], None]  # declare the queue and its bindings, then call back


@dataclass(frozen=True)
class Route:
    """Where snapshot requests go: the apiservers, or (for an apiserver's own cache) the store; and
    whose replies are believed (None: the answerers of `{c}.api`)."""

    exchange: str
    key: str
    headers: dict | None = None
    answerers: Answerers | None = None

MIN_RESYNC_S = 1.0
BIG_CACHE = 10_000  # objects; a cache this large is frozen out of the garbage collector's scans
RESYNC_JITTER_S = 0.5
SNAPSHOT_RETRY_S = 1.0


class Informer:
    def __init__(self, bus: Bus, rpc: RpcClient, names: Names, spec: QueueSpec, handler: Callable[[Delta], None],
                 *, owner: str, max_bytes: int, timeout: float, prefetch: int = 256, max_depth: int = codec.MAX_DEPTH,
                 bounds: Bounds = DEFAULT_BOUNDS, on_synced: Callable[[], None] = lambda: None,
                 clock: Callable[[], float] = time.monotonic, declare: Declare | None = None,
                 snapshot_route: Route | None = None, may_publish_dead: bool = True):
        self.bus, self.rpc, self.names, self.spec = bus, rpc, names, spec
        self.handler, self.owner, self.max_bytes, self.timeout = handler, owner, max_bytes, timeout
        self.prefetch, self.max_depth, self.bounds = prefetch, max_depth, bounds
        self.on_synced, self.clock = on_synced, clock
        self.declare = declare or self._declare  # a person's queue is declared by an apiserver (`watch`)
        self.route = snapshot_route or Route(names.api, "apiserver")
        self.publisher = broker_user_of(names.cluster, "store")
        self.may_publish_dead = may_publish_dead  # a person may not write `{c}.dead`: the queue's DLX takes it
        self.cache = Cache(spec.binding_keys(names.events))
        self.held: list[Message] = []  # deliveries waiting for a resync to finish
        self.resyncing = False
        self.replay = False  # the handler forgot its state: the next snapshot hands it everything
        self.last_resync = -MIN_RESYNC_S
        self.tag: str | None = None
        self.resyncs = 0
        self.generation = 0

    # ---- start: queue first, then the snapshot, then consume --------------------------------
    def start(self, replay: bool = False) -> None:
        """Call on every (re)connect: declare, load a snapshot into the kept cache, consume.
        `replay`: the handler reset its state, so it gets every object again."""
        self.held.clear()  # their channel or their queue is gone: the broker has them back
        self.generation += 1
        gen = self.generation
        self.tag = None
        self.resyncing = True
        self.replay = self.replay or replay
        self.declare(self.spec, lambda: self._request_snapshot(gen))

    def _declare(self, spec: QueueSpec, then: Callable[[], None]) -> None:
        declare_queue(self.bus, self.names, spec, then, bounds=self.bounds)

    def stop(self, then: Callable[[], None] = lambda: None) -> None:
        """Stop consuming; whatever is still in flight for this generation is ignored."""
        self.generation += 1
        held, self.held = self.held, []
        for msg in held:
            msg.requeue()  # a no-op when its channel is already gone: the broker has it back
        tag, self.tag = self.tag, None
        if tag:
            self.bus.cancel_consumer(tag, then)
        else:
            then()

    def _request_snapshot(self, gen: int) -> None:
        if gen != self.generation or self.bus.channel is None:
            return  # stopped or restarted meanwhile; a reconnect starts it again
        body = {"verb": "snapshot", "kind": "*", "options": {"keys": list(self.cache.bindings)}}
        self.rpc.call(self.route.exchange, self.route.key, body, lambda reply: self._on_snapshot(gen, reply),
                      self.timeout, answerers=self.route.answerers or api_answerers(self.names.cluster),
                      user_id=self.bus.user, headers=self.route.headers)

    def _on_snapshot(self, gen: int, reply: dict[str, Any] | StatusError) -> None:
        if gen != self.generation:
            log.debug("informer.stale_snapshot_reply", owner=self.owner, queue=self.spec.name)
            return
        deltas = self._load(gen, reply)
        if deltas is None:
            return
        self.resyncing = self.replay = False
        if len(self.cache.objects) >= BIG_CACHE:
            freeze_survivors(generation=1)  # the cache lives on: later full collections need not scan it
        self._deliver(deltas)
        if self.tag is None:
            self.tag = self.bus.consume(self.spec.name, lambda msg: self._on_delivery(gen, msg), self.prefetch,
                                        exclusive=self.spec.exclusive)
            self.bus.on_cancel(self.tag, lambda: self._on_cancelled(gen))
            self._synced()
        held, self.held = self.held, []
        for msg in held:
            self._on_message(msg)

    def _load(self, gen: int, reply: dict[str, Any] | StatusError) -> list[Delta] | None:
        """The deltas of loading the reply's snapshot; None (and a retry later) when it cannot be."""
        try:
            snap = unwrap(reply)
            deltas = self.cache.replace(snap.get("items"), _revision(snap.get("rev")), replay=self.replay)
        except (StatusError, StaleSnapshot, BadEvent) as exc:
            log.warning("informer.snapshot_failed", owner=self.owner, queue=self.spec.name, error=str(exc))
        except Exception:
            log.exception("informer.snapshot_failed", owner=self.owner, queue=self.spec.name)
        else:
            log.info("informer.synced", owner=self.owner, queue=self.spec.name, rev=self.cache.rev,
                     objects=len(self.cache.objects), changes=len(deltas))
            return deltas
        self.bus.call_later(SNAPSHOT_RETRY_S, lambda: self._request_snapshot(gen))
        return None

    def _synced(self) -> None:
        try:
            self.on_synced()
        except Exception:
            log.exception("informer.on_synced_failed", owner=self.owner, queue=self.spec.name)

    def _on_cancelled(self, gen: int) -> None:
        """The broker cancelled the consumer (its queue was deleted): start over."""
        if gen != self.generation:
            return
        log.warning("informer.queue_lost", owner=self.owner, queue=self.spec.name)
        self.resyncs += 1
        INFORMER_RESYNCS.labels("queue_lost").inc()
        self.start()

    # ---- steady state -------------------------------------------------------------------------
    def _on_delivery(self, gen: int, msg: Message) -> None:
        if gen != self.generation:
            msg.requeue()  # for a consumer of this queue that still wants it
            return
        self._on_message(msg)

    def _on_message(self, msg: Message) -> None:
        if self.resyncing:
            self.held.append(msg)
            return
        if msg.user_id != self.publisher:  # the default exchange reaches every queue: only the store's count
            self._dead_letter(msg, "forbidden", f"events come from the store only, not from {msg.user_id!r}")
            return
        try:
            body = codec.decode(msg.raw, msg.headers, self.max_bytes, self.max_depth, batch=True)
            events = [parse_event(item) for item in (body if isinstance(body, list) else [body])]
        except codec.DecodeError as exc:
            self._dead_letter(msg, exc.reason, exc.detail)
            return
        for ev in events:  # a batch's events in revision order; handlers see one at a time
            deltas = self._step(msg, ev)
            if deltas is None:
                return  # held for a resync (its applied events are duplicates then) or dead-lettered
            self._deliver(deltas)
        msg.ack()

    def _step(self, msg: Message, ev: Event | Bookmark) -> list[Delta] | None:
        """Run one event through the cache; None when the message went elsewhere (held for a
        resync, or dead-lettered)."""
        try:
            if isinstance(ev, Bookmark):
                self.cache.check(ev)
                return []
            return self.cache.apply(ev)
        except Gap as gap:
            self.held.append(msg)
            self._resync(str(gap))
        except BadEvent as exc:
            self._dead_letter(msg, "invalid", str(exc))
        except Exception as exc:  # a bug in the cache: it may be half-changed, so resync it too
            log.exception("informer.cache_failed", owner=self.owner, queue=self.spec.name)
            self._dead_letter(msg, "cache", f"{type(exc).__name__}: {exc}")
            self._resync(f"the cache failed on an event: {type(exc).__name__}")
        return None

    def _dead_letter(self, msg: Message, reason: str, detail: str) -> None:
        if self.may_publish_dead:
            dead_letter(self.bus, self.names, msg, reason, detail, self.owner)
            return
        log.warning("informer.rejected", owner=self.owner, queue=self.spec.name, reason=reason, detail=detail[:500],
                    message_id=msg.message_id)
        msg.drop()  # rejected: the broker dead-letters it (`x-death`), the reason is in this log

    def _deliver(self, deltas: list[Delta]) -> None:
        for delta in deltas:
            try:
                self.handler(delta)
            except Exception:
                log.exception("informer.handler_failed", owner=self.owner, kind=delta.kind,
                              object=_name(delta), rev=delta.rev)

    def _resync(self, why: str) -> None:
        """Rate-limited and jittered, so a broker hiccup does not make every consumer ask at once."""
        self.resyncing = True
        self.resyncs += 1
        INFORMER_RESYNCS.labels("gap").inc()
        wait = max(0.0, self.last_resync + MIN_RESYNC_S - self.clock()) + random.uniform(0, RESYNC_JITTER_S)
        self.last_resync = self.clock() + wait
        log.warning("informer.gap", owner=self.owner, queue=self.spec.name, why=why, rev=self.cache.rev,
                    resync_in=round(wait, 3))
        gen = self.generation
        self.bus.call_later(wait, lambda: self._request_snapshot(gen))


def _revision(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadEvent(f"snapshot rev: {str(value)[:40]!r} is not a revision")
    return value


def _name(delta: Delta) -> str:
    try:
        return delta.key
    except Exception:
        return "?"
