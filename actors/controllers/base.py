"""The controller actor: local caches feed a per-key work queue; `reconcile(key)` reads the cache
(level-based, not the event) and writes corrections through the apiserver. One active instance."""
from __future__ import annotations

import time
from typing import Any, Callable

from api.status import StatusError
from bus.declare import QueueSpec
from bus.rpc import unwrap
from runtime.actor import Actor
from runtime.cache import Delta
from runtime.slices import SlicedLoop
from runtime.workqueue import WorkQueue



class Controller(Actor):
    singleton = True
    kinds: tuple[str, ...] = ()  # the lower-case kinds it watches

    def __init__(self, settings, **kw: Any):
        super().__init__(settings, **kw)
        self.objects: dict[str, dict[tuple[str, str], dict]] = {}  # kind -> (namespace, name) -> object
        self._new_queue()

    def _new_queue(self) -> None:
        self.queue = WorkQueue(time.monotonic, name=self.name)
        self.loop = SlicedLoop(self.bus, self._step, lambda: len(self.queue) > 0, self.queue.next_due,
                               lambda: self.active)

    def informers(self) -> list[tuple[QueueSpec, Callable[[Delta], None]]]:
        events = self.names.events
        spec = QueueSpec(self.names.actor_queue(self.name), tuple((events, f"{k}.#") for k in self.kinds),
                         single_active=True)
        return [(spec, self._on_delta)]

    def on_active(self) -> None:
        self.objects = {}
        self._new_queue()

    def on_synced(self) -> None:
        self.kick()

    # ---- the cache -----------------------------------------------------------------------------
    def _on_delta(self, delta: Delta) -> None:
        meta = delta.object["metadata"]
        store = self.objects.setdefault(delta.kind, {})
        key = (meta.get("namespace") or "", meta["name"])
        old = store.get(key)
        if delta.type == "DELETED":
            store.pop(key, None)
        else:
            store[key] = delta.object
        for k in self.keys_for(delta, old):
            self.queue.add(k)
        self.kick()

    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        """Which keys a change concerns."""
        raise NotImplementedError

    def get(self, kind: str, namespace: str, name: str) -> dict | None:
        return self.objects.get(kind, {}).get((namespace, name))

    def in_namespace(self, kind: str, namespace: str) -> list[dict]:
        return [o for (ns, _), o in self.objects.get(kind, {}).items() if ns == namespace]

    # ---- the loop ------------------------------------------------------------------------------
    def kick(self) -> None:
        self.loop.kick()

    def _step(self) -> bool:
        key = self.queue.get()
        if key is None:
            return False
        try:
            self.reconcile(key)
            self.queue.passed(key)
        except Exception:
            self.log.exception("controller.reconcile_failed", key=key)
            self.queue.add_rate_limited(key)
        finally:
            self.queue.done(key)
        return True

    def reconcile(self, key: str) -> None:
        raise NotImplementedError

    def retry(self, key: str) -> None:
        """A write for `key` failed: look again, later each time it keeps failing."""
        self.queue.retry_after_failed_write(key)
        self.kick()

    # ---- writing -------------------------------------------------------------------------------
    def write(self, body: dict, done: Callable[[dict | StatusError], None] = lambda r: None) -> None:
        """A request through the apiserver; `done` gets the object or the StatusError."""
        def answered(reply) -> None:
            try:
                done(unwrap(reply).get("object", {}))
            except StatusError as exc:
                done(exc)

        self.ask(body, answered)

    def set_owners(self, obj: dict, refs: list[dict]) -> None:
        """Patch an object's ownerReferences (adoption and release)."""
        meta = obj["metadata"]
        self.write({"verb": "patch", "kind": obj["kind"], "namespace": meta.get("namespace"), "name": meta["name"],
                    "object": {"metadata": {"ownerReferences": refs}}})

    def event(self, obj: dict, reason: str, message: str, type_: str = "Normal") -> None:
        self.record(obj, reason, message, type_, self.name.replace("controller.", "") + "-controller")
