"""The namespace controller: a terminating namespace is emptied, then its `kubernetes` finalizer goes.

As Kubernetes' does, it does not cache the namespaces' contents: for a namespace being deleted it
lists every namespaced kind, deletes what is there (background propagation), and looks again a
second later until nothing is left; then it clears `spec.finalizers` and the store removes the
namespace. Creating in a terminating namespace is refused by the store meanwhile.
"""
from __future__ import annotations

from typing import Any

from actors.controllers.base import Controller
from api import customkinds
from api.registry import CUSTOM, KINDS
from api.status import StatusError
from bus.rpc import unwrap
from runtime.cache import Delta

FINALIZER = "kubernetes"
RECHECK_S = 1.0
CONTENT = tuple(info.kind for info in KINDS.values() if info.namespaced)


class NamespaceController(Controller):
    name = "controller.namespace"
    kinds = ("namespace", "customresourcedefinition")  # the CRDs: their namespaced kinds are content too

    def __init__(self, settings, **kw: Any):
        super().__init__(settings, **kw)
        self.busy: set[str] = set()  # namespaces whose lists are out

    def on_active(self) -> None:
        super().on_active()
        self.busy = set()

    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        if delta.kind == "CustomResourceDefinition":
            customkinds.on_event(delta.type, delta.object)
            return []
        return [] if delta.type == "DELETED" else [delta.object["metadata"]["name"]]

    def reconcile(self, key: str) -> None:
        ns = self.get("Namespace", "", key)
        if ns is None or not ns["metadata"].get("deletionTimestamp") or key in self.busy:
            return
        self.busy.add(key)
        content = CONTENT + tuple(info.kind for info in CUSTOM.values() if info.namespaced)
        tally = {"kinds": len(content), "left": 0, "failed": False}
        for kind in content:
            self.ask({"verb": "list", "kind": kind, "namespace": key, "options": {}},
                     lambda reply, k=kind: self._listed(key, k, reply, tally))

    def _listed(self, ns: str, kind: str, reply, tally: dict) -> None:
        try:
            items = unwrap(reply)["items"]
        except StatusError as exc:
            self.log.info("namespace.list_failed", namespace=ns, kind=kind, reason=exc.reason)
            items, tally["failed"] = [], True
        for obj in items:
            if not obj["metadata"].get("deletionTimestamp"):
                self.write({"verb": "delete", "kind": kind, "namespace": ns, "name": obj["metadata"]["name"],
                            "options": {"propagationPolicy": "Background"}})
        tally["left"] += len(items)
        tally["kinds"] -= 1
        if tally["kinds"]:
            return
        self.busy.discard(ns)
        if tally["left"] or tally["failed"]:
            self.log.info("namespace.emptying", namespace=ns, remaining=tally["left"])
            self.queue.add_after(ns, RECHECK_S)
            self.kick()
        else:
            self._finalize(ns)

    def _finalize(self, name: str) -> None:
        ns = self.get("Namespace", "", name)
        if ns is None:
            return
        spec = {**(ns.get("spec") or {}), "finalizers": [f for f in (ns.get("spec") or {}).get("finalizers") or []
                                                         if f != FINALIZER]}
        self.log.info("namespace.finalized", namespace=name, rev=ns["metadata"].get("resourceVersion"))
        self.write({"verb": "update", "kind": "Namespace", "name": name, "object": {**ns, "spec": spec},
                    "resourceVersion": ns["metadata"]["resourceVersion"]},
                   lambda result: self.retry(name) if isinstance(result, StatusError) else None)
