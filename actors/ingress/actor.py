"""The ingress controller actor: caches of Ingresses, IngressClasses, Services and EndpointSlices fed
by events, an HTTP reverse proxy on `KUBUS_INGRESS_ADDRESS` (default 127.0.0.1:8080) routing by the
Ingress rules of its class, and `status.loadBalancer.ingress` set on every Ingress it serves. Any
number may run (each on its own address; the status names the address each writes). A rule or
`defaultBackend` it does not serve (actors/ingress/claims) gets a Warning Event saying why, once."""
from __future__ import annotations

import random
import threading

from actors.ingress.backends import Backends
from actors.ingress.rules import RouteTable
from actors.ingress.server import IngressServer
from api.ingress_validation import DEFAULT_CLASS_ANNOTATION
from runtime.cache import Delta
from runtime.follower import Follower

KINDS = ("Ingress", "IngressClass", "Service", "EndpointSlice")


class IngressActor(Follower):
    name = "ingress"
    kinds = KINDS

    def __init__(self, settings, **kw):
        super().__init__(settings, **kw)
        self.routes = RouteTable(settings.ingress_class, settings.ingress_controller)
        self.backends = Backends()
        self.lock = threading.Lock()  # the HTTP thread reads what the mailbox writes
        self.server = IngressServer(settings.ingress_address, self.choose)
        self.address = settings.ingress_address.rpartition(":")[0]
        self.ingresses: dict[tuple[str, str], dict] = {}
        self.synced = False
        self.warned: set[tuple[str, str, str]] = set()  # (uid, reason, host) of the refusals told

    def on_delta(self, delta: Delta) -> None:
        gone = delta.type == "DELETED"
        with self.lock:
            if delta.kind in ("Ingress", "IngressClass"):
                (self.routes.remove if gone else self.routes.apply)(delta.kind, delta.object)
            else:
                self.backends.apply(delta.kind, delta.object, gone)
        if delta.kind == "Ingress" and not gone:
            self._publish_status(delta.object)
        if delta.kind in ("Ingress", "IngressClass") and self.synced:
            self._warn_refused()

    def on_synced(self) -> None:
        self.synced = True
        self._make_class()
        self._warn_refused()
        self.log.info("ingress.serving", address=self.settings.ingress_address, cls=self.settings.ingress_class)

    def _make_class(self) -> None:
        """A fresh cluster's Ingresses work out of the box (k3s and minikube ship their controller's class
        as the default): with none of its name, the controller makes its IngressClass, the cluster's
        default unless another class is."""
        s = self.settings
        with self.lock:
            classes = dict(self.routes.classes)
        if not s.ingress_class_create or s.ingress_class in classes:
            return
        default = not any((c["metadata"].get("annotations") or {}).get(DEFAULT_CLASS_ANNOTATION) == "true"
                          for c in classes.values())
        made = {"apiVersion": "networking.k8s.io/v1", "kind": "IngressClass",
                "metadata": {"name": s.ingress_class,
                             "annotations": {DEFAULT_CLASS_ANNOTATION: "true"} if default else {}},
                "spec": {"controller": s.ingress_controller}}
        self.ask({"verb": "create", "kind": "IngressClass", "object": made},
                 lambda reply: self.log.info("ingress.class_made", cls=s.ingress_class, default=default,
                                             ok=isinstance(reply, dict) and bool(reply.get("ok"))))

    def _warn_refused(self) -> None:
        """An Event on each Ingress for each of its rules or defaultBackend newly not served."""
        with self.lock:
            refused = self.routes.plan().refused
        now = {(r.ingress["metadata"].get("uid") or "", r.reason, r.host): r for r in refused}
        for key in now.keys() - self.warned:
            ingress = {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", **now[key].ingress}
            self.record(ingress, now[key].reason, now[key].message, "Warning", "ingress-controller")
            self.log.info("ingress.refused", ingress=f"{ingress['metadata'].get('namespace')}/"
                                                     f"{ingress['metadata']['name']}", reason=key[1], host=key[2])
        self.warned = set(now)

    # ---- requests (on the HTTP thread) -------------------------------------------------------------
    def choose(self, host: str, path: str) -> tuple[str, int] | int:
        with self.lock:
            route = self.routes.match(host, path)
            if route is None:
                return 404
            endpoints = self.backends.endpoints(route.namespace, route.service, route.port)
        return random.choice(endpoints) if endpoints else 503

    # ---- status --------------------------------------------------------------------------------------
    def _publish_status(self, ingress: dict) -> None:
        """`status.loadBalancer.ingress` names this controller's address on an Ingress of its class."""
        with self.lock:
            ours = self.routes.serves(ingress)
        wanted = [{"ip": self.address, "ports": [{"port": self.server.port, "protocol": "TCP"}]}]
        if not ours or ((ingress.get("status") or {}).get("loadBalancer") or {}).get("ingress") == wanted:
            return
        meta = ingress["metadata"]
        self.ask({"verb": "patch", "kind": "Ingress", "namespace": meta.get("namespace"), "name": meta["name"],
                  "object": {"status": {"loadBalancer": {"ingress": wanted}}},
                  "options": {"subresource": "status", "patchType": "merge"}}, lambda reply: None)

    def run(self) -> None:
        self.server.start()
        try:
            super().run()
        finally:
            self.server.stop()
