"""People's watches (contract 5): a person may not declare or bind queues, so the apiserver
declares the watch queue, bound to exactly the keys RBAC allows, and the person consumes it.

The apiserver that set a watch up keeps it, with the keys it bound: a queue declared again with
other keys loses the ones left out, and when RBAC changes, the apiserver checks its watches
again and deletes the queue of one that is no longer allowed: the broker cancels the person's
consumer, and the person's next `watch` of it is refused. A watch outlives its apiserver only
until the person disconnects (the queue is auto-delete, and expires when nobody has consumed it
for a minute); the apiserver forgets a watch whose queue has gone, on a slow sweep and whenever
its person is at the bound of watches one apiserver keeps for a person (429 beyond it)."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import structlog

from actors.apiserver.authz.rules import Attributes, UserInfo
from api.status import StatusError
from bus import side
from bus.connection import Bus
from bus.declare import Bounds, QueueSpec, declare_queue
from bus.topology import Names
from config.settings import Settings

log = structlog.get_logger("apiserver.watches")
UNUSED_EXPIRY_MS = 60_000
SWEEP_S = UNUSED_EXPIRY_MS / 1000  # how often every watch's queue is looked for
RECOUNT_S = 1.0  # a person at their bound has their queues looked for at most this often


@dataclass
class LiveWatch:
    user: UserInfo
    keys: frozenset[str]
    attrs: list[Attributes]


@dataclass(frozen=True)
class WatchBounds:
    """What one apiserver keeps for one person (settings `max_watches_per_user`, `max_watch_keys_per_user`)."""

    watches: int = Settings.model_fields["max_watches_per_user"].default
    keys: int = Settings.model_fields["max_watch_keys_per_user"].default


class Watches:
    def __init__(self, bus: Bus, names: Names, bounds: Bounds, allowed: Callable[[Attributes], bool],
                 limits: WatchBounds = WatchBounds()):
        self.bus, self.names, self.bounds, self.allowed, self.limits = bus, names, bounds, allowed, limits
        self.live: dict[str, LiveWatch] = {}
        self._of_user: dict[str, set[str]] = {}  # user name -> their queues in `live`
        self._sweep = None  # the timer of the next sweep
        self._recounted: dict[str, float] = {}  # user name -> when their queues were last looked for

    def queue_allowed(self, user: UserInfo, queue: str) -> bool:
        return queue.startswith(self.names.watch_prefix(user.name)) and len(queue.encode()) <= 255

    def set_up(self, user: UserInfo, queue: str, keys: list[str], attrs: list[Attributes],
               done: Callable[[], None], refused: Callable[[StatusError], None]) -> None:
        """Declare `queue` bound to `keys` (already authorized), then call `done`; `refused` with a
        429 when the person is over their bounds even after forgetting their watches that have gone."""
        wanted = frozenset(keys)
        if self._over(user, queue, wanted) is None:
            self._declare(user, queue, wanted, attrs, done)
            return

        def decide() -> None:
            over = self._over(user, queue, wanted)
            if over is None:
                self._declare(user, queue, wanted, attrs, done)
            else:
                log.info("apiserver.watch_refused", queue=queue, user=user.name, why=over)
                refused(StatusError("TooManyRequests", f"Too many requests: {over}"))
        self.forget_gone(self._recount(user, queue), decide)

    def _recount(self, user: UserInfo, queue: str) -> list[str]:
        """The other queues of `user` to look for before refusing them; none if looked for just now
        (a person asking again and again at their bound costs the broker nothing more)."""
        now = time.monotonic()
        if now - self._recounted.get(user.name, -RECOUNT_S) < RECOUNT_S:
            return []
        self._recounted[user.name] = now
        return sorted(self._of_user.get(user.name, set()) - {queue})

    def _over(self, user: UserInfo, queue: str, keys: frozenset[str]) -> str | None:
        """Why `user` may not have `queue` bound to `keys` besides their other watches, or None."""
        others = [self.live[q] for q in self._of_user.get(user.name, ()) if q != queue]
        if len(others) >= self.limits.watches:
            return (f'user "{user.name}" has {len(others)} watches open, the most an apiserver keeps for one '
                    f'user; close some first')
        bound = sum(len(w.keys) for w in others) + len(keys)
        if bound > self.limits.keys:
            return (f'the watches of user "{user.name}" would bind {bound} keys, more than the '
                    f'{self.limits.keys} an apiserver keeps for one user')
        return None

    def _declare(self, user: UserInfo, queue: str, keys: frozenset[str], attrs: list[Attributes],
                 done: Callable[[], None]) -> None:
        """Bind `keys`, then unbind what this apiserver bound before and `keys` leave out: a queue
        declared again keeps no binding its person is no longer asking (and allowed) to have."""
        old = self.live.get(queue)
        stale = sorted(old.keys - keys) if old else []
        spec = QueueSpec(queue, tuple((self.names.events, k) for k in sorted(keys)), durable=False,
                         auto_delete=True, arguments={"x-expires": UNUSED_EXPIRY_MS})
        self._remember(queue, LiveWatch(user, keys, attrs))
        declare_queue(self.bus, self.names, spec, (lambda: None) if stale else done, bounds=self.bounds)
        for i, key in enumerate(stale):
            log.info("apiserver.watch_unbound", queue=queue, user=user.name, key=key)
            self.bus.channel.queue_unbind(queue, self.names.events, routing_key=key,
                                          callback=(lambda _frame: done()) if i == len(stale) - 1 else None)

    def recheck(self) -> None:
        """After an RBAC change: end the watches no longer allowed."""
        for queue, watch in list(self.live.items()):
            if all(self.allowed(a) for a in watch.attrs):
                continue
            self._forget(queue)
            log.info("apiserver.watch_revoked", queue=queue, user=watch.user.name)
            channel = self.bus.channel
            if channel is not None and channel.is_open:
                channel.queue_delete(queue)

    # ---- forgetting the watches whose queue has gone ----------------------------------------------
    def forget_gone(self, queues: list[str], then: Callable[[], None]) -> None:
        """Ask the broker for each of `queues`, one at a time, and forget those it does not have
        (only on its NOT_FOUND: a watch whose queue may exist stays known, so RBAC can end it)."""
        channel = self.bus.channel
        if not queues or channel is None or not channel.is_open:
            then()
            return
        queue, rest = queues[0], queues[1:]

        def answered(exists: bool | None) -> None:
            if exists is False and queue in self.live:
                self._forget(queue)
                log.info("apiserver.watch_gone", queue=queue)
            self.forget_gone(rest, then)
        side.queue_exists(self.bus, queue, answered)

    def _swept(self) -> None:
        self._sweep = None
        self.forget_gone(sorted(self.live), self._arm)

    def _arm(self) -> None:
        if self._sweep is None and self.live:
            self._sweep = self.bus.call_later(SWEEP_S, self._swept)

    def _remember(self, queue: str, watch: LiveWatch) -> None:
        self.live[queue] = watch
        self._of_user.setdefault(watch.user.name, set()).add(queue)
        self._arm()

    def _forget(self, queue: str) -> None:
        watch = self.live.pop(queue)
        queues = self._of_user[watch.user.name]
        queues.discard(queue)
        if not queues:
            del self._of_user[watch.user.name]
            self._recounted.pop(watch.user.name, None)
