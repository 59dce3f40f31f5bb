"""The base of actors of which any number run side by side (the proxy, the DNS actor, the ingress
controller): no lock, and each its own exclusive, auto-delete cache queue `{c}.<name>.<instance>`
bound to the events of its `kinds`, its connection named after the instance."""
from __future__ import annotations

import uuid
from typing import Callable

from bus.declare import QueueSpec
from runtime.actor import Actor
from runtime.cache import Delta


class Follower(Actor):
    kinds: tuple[str, ...] = ()

    def __init__(self, settings, **kw):
        self.instance = uuid.uuid4().hex[:12]  # before the bus, which names its connection after it
        super().__init__(settings, **kw)

    @property
    def connection_name(self) -> str:
        return f"{self.name}-{self.instance}"

    def informers(self) -> list[tuple[QueueSpec, Callable[[Delta], None]]]:
        keys = tuple((self.names.events, f"{kind.lower()}.#") for kind in self.kinds)
        spec = QueueSpec(f"{self.names.actor_queue(self.name)}.{self.instance}", keys, durable=False,
                         exclusive=True, auto_delete=True)
        return [(spec, self.on_delta)]

    def on_delta(self, delta: Delta) -> None:
        raise NotImplementedError
