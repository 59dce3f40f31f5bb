"""People's watches (contract 5): a person may not declare or bind queues, so the apiserver
declares the watch queue, bound to exactly the keys RBAC allows, and the person consumes it.

The apiserver that set a watch up keeps it; when RBAC changes, it checks its watches again and
deletes the queue of one that is no longer allowed: the broker cancels the person's consumer, and
the person's next `watch` of it is refused. A watch outlives its apiserver only until the person
disconnects (the queue is auto-delete, and expires when nobody has consumed it for a minute)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import structlog

from api.authorization import Attributes, UserInfo
from bus.connection import Bus
from bus.declare import Bounds, QueueSpec, declare_queue
from bus.topology import Names

log = structlog.get_logger("apiserver.watches")
UNUSED_EXPIRY_MS = 60_000


@dataclass
class LiveWatch:
    user: UserInfo
    attrs: list[Attributes]


class Watches:
    def __init__(self, bus: Bus, names: Names, bounds: Bounds, allowed: Callable[[Attributes], bool]):
        self.bus, self.names, self.bounds, self.allowed = bus, names, bounds, allowed
        self.live: dict[str, LiveWatch] = {}

    def queue_allowed(self, user: UserInfo, queue: str) -> bool:
        return queue.startswith(self.names.watch_prefix(user.name)) and len(queue.encode()) <= 255

    def set_up(self, user: UserInfo, queue: str, keys: list[str], attrs: list[Attributes],
               done: Callable[[], None]) -> None:
        """Declare `queue` bound to `keys` (already authorized), then call `done`."""
        spec = QueueSpec(queue, tuple((self.names.events, k) for k in keys), durable=False, auto_delete=True,
                         arguments={"x-expires": UNUSED_EXPIRY_MS})
        self.live[queue] = LiveWatch(user, attrs)
        declare_queue(self.bus, self.names, spec, done, bounds=self.bounds)

    def recheck(self) -> None:
        """After an RBAC change: end the watches no longer allowed."""
        for queue, watch in list(self.live.items()):
            if all(self.allowed(a) for a in watch.attrs):
                continue
            del self.live[queue]
            log.info("apiserver.watch_revoked", queue=queue, user=watch.user.name)
            channel = self.bus.channel
            if channel is not None and channel.is_open:
                channel.queue_delete(queue)
