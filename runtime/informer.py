"""Feeds a local cache from the broker (contract 4): declare the queue and its bindings, load a
snapshot, then consume; on a gap, resync from a fresh snapshot and hand the handler exactly the
difference. Runs on the bus's ioloop thread."""
from __future__ import annotations

import random
import time
from typing import Callable

import structlog

from api.status import StatusError
from bus import codec
from bus.connection import Bus
from bus.dead import dead_letter
from bus.declare import QueueSpec, declare_queue
from bus.message import Message
from bus.messages import Bookmark, parse_event
from bus.rpc import RpcClient, unwrap
from bus.topology import Names
from runtime.cache import Cache, Delta, Gap, StaleSnapshot

log = structlog.get_logger("informer")

MIN_RESYNC_S = 1.0
RESYNC_JITTER_S = 0.5
SNAPSHOT_RETRY_S = 1.0


class Informer:
    def __init__(self, bus: Bus, rpc: RpcClient, names: Names, spec: QueueSpec, handler: Callable[[Delta], None],
                 *, owner: str, max_bytes: int, timeout: float, prefetch: int = 256,
                 on_synced: Callable[[], None] = lambda: None, clock: Callable[[], float] = time.monotonic):
        self.bus, self.rpc, self.names, self.spec = bus, rpc, names, spec
        self.handler, self.owner, self.max_bytes, self.timeout = handler, owner, max_bytes, timeout
        self.prefetch, self.on_synced, self.clock = prefetch, on_synced, clock
        self.cache = Cache(spec.binding_keys(names.events))
        self.held: list[Message] = []  # deliveries waiting for a resync to finish
        self.resyncing = False
        self.last_resync = -MIN_RESYNC_S
        self.tag: str | None = None
        self.resyncs = 0

    # ---- start: queue first, then the snapshot, then consume --------------------------------
    def start(self) -> None:
        """Call on every (re)connect: declare, load a snapshot, consume."""
        self.held.clear()
        self.tag = None
        self.resyncing = True
        declare_queue(self.bus, self.names, self.spec, self._request_snapshot)

    def stop(self, then: Callable[[], None] = lambda: None) -> None:
        tag, self.tag = self.tag, None
        if tag:
            self.bus.cancel_consumer(tag, then)
        else:
            then()

    def _request_snapshot(self) -> None:
        body = {"verb": "snapshot", "kind": "*", "options": {"keys": list(self.cache.bindings)}}
        self.rpc.call(self.names.api, "apiserver", body, self._on_snapshot, self.timeout, user_id=self.bus.user)

    def _on_snapshot(self, reply) -> None:
        try:
            snap = unwrap(reply)
            deltas = self.cache.replace(snap["items"], snap["rev"])
        except (StatusError, StaleSnapshot) as exc:
            log.warning("informer.snapshot_failed", owner=self.owner, queue=self.spec.name, error=str(exc))
            self.bus.call_later(SNAPSHOT_RETRY_S, self._request_snapshot)
            return
        log.info("informer.synced", owner=self.owner, queue=self.spec.name, rev=snap["rev"],
                 objects=len(self.cache.objects), changes=len(deltas))
        self.resyncing = False
        self._deliver(deltas)
        if self.tag is None:
            self.tag = self.bus.consume(self.spec.name, self._on_message, self.prefetch, exclusive=self.spec.exclusive)
            self.bus.on_cancel(self.tag, self._on_cancelled)
            self.on_synced()
        held, self.held = self.held, []
        for msg in held:
            self._on_message(msg)

    def _on_cancelled(self) -> None:
        """The broker cancelled the consumer (its queue was deleted): start over."""
        log.warning("informer.queue_lost", owner=self.owner, queue=self.spec.name)
        self.resyncs += 1
        self.start()

    # ---- steady state -------------------------------------------------------------------------
    def _on_message(self, msg: Message) -> None:
        if self.resyncing:
            self.held.append(msg)
            return
        try:
            ev = parse_event(codec.decode(msg.raw, msg.headers, self.max_bytes))
        except codec.DecodeError as exc:
            dead_letter(self.bus, self.names, msg, exc.reason, exc.detail, self.owner)
            return
        try:
            if isinstance(ev, Bookmark):
                self.cache.check(ev)
                deltas = []
            else:
                deltas = self.cache.apply(ev)
        except Gap as gap:
            self.held.append(msg)
            self._resync(str(gap))
            return
        self._deliver(deltas)
        msg.ack()

    def _deliver(self, deltas: list[Delta]) -> None:
        for delta in deltas:
            try:
                self.handler(delta)
            except Exception:
                log.exception("informer.handler_failed", owner=self.owner, kind=delta.kind, object=delta.key,
                              rev=delta.rev)

    def _resync(self, why: str) -> None:
        """Rate-limited and jittered, so a broker hiccup does not make every consumer ask at once."""
        self.resyncing = True
        self.resyncs += 1
        wait = max(0.0, self.last_resync + MIN_RESYNC_S - self.clock()) + random.uniform(0, RESYNC_JITTER_S)
        self.last_resync = self.clock() + wait
        log.warning("informer.gap", owner=self.owner, queue=self.spec.name, why=why, rev=self.cache.rev,
                    resync_in=round(wait, 3))
        self.bus.call_later(wait, self._request_snapshot)
