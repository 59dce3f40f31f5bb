"""The CustomResourceDefinition controller: what kube-apiserver's apiextensions controllers do for a CRD
— the naming and establishing controllers (`acceptedNames`, NamesAccepted, Established, storedVersions:
`crdnames.py` decides) and the finalizer controller: a deleted CRD's objects are deleted, then its
`customresourcecleanup.apiextensions.k8s.io` finalizer goes."""
from __future__ import annotations

from typing import Any

from actors.controllers.base import Controller
from actors.controllers.crdnames import desired_status
from api.apiextensions import CLEANUP_FINALIZER
from api.status import StatusError
from api.times import now
from bus.rpc import unwrap
from runtime.cache import Delta

KIND = "CustomResourceDefinition"
CLEANUP_POLL_S = 1.0  # Kubernetes polls every 5 s; a kubus store answers at once


class CRDController(Controller):
    name = "controller.crd"
    kinds = ("customresourcedefinition",)

    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        group = delta.object["spec"].get("group")
        return [name for (_, name), crd in self.objects.get(KIND, {}).items()   # a freed name may now be accepted
                if crd["spec"].get("group") == group or name == delta.object["metadata"]["name"]]

    def reconcile(self, key: str) -> None:
        crd = self.get(KIND, "", key)
        if crd is None:
            return
        if crd["metadata"].get("deletionTimestamp"):
            self._clean_up(key, crd)
            return
        others = [o for (_, name), o in sorted(self.objects.get(KIND, {}).items()) if name != key]
        status = desired_status(crd, others, now())
        if status != crd.get("status"):
            self.write({"verb": "updateStatus", "kind": KIND, "name": key,
                        "object": {**crd, "status": status}, "resourceVersion": crd["metadata"]["resourceVersion"]},
                       lambda r: self.retry(key) if isinstance(r, StatusError) else None)

    # ---- the finalizer controller --------------------------------------------------------------
    def _clean_up(self, key: str, crd: dict) -> None:
        if CLEANUP_FINALIZER not in (crd["metadata"].get("finalizers") or []):
            return
        kind = ((crd.get("status") or {}).get("acceptedNames") or {}).get("kind")
        self.ask({"verb": "list", "kind": kind}, lambda reply: self._listed(key, crd, reply))

    def _listed(self, key: str, crd: dict, reply: Any) -> None:
        try:
            items = unwrap(reply)["items"]
        except StatusError as exc:
            if exc.reason != "NotFound":  # NotFound: the kind is no longer served, nothing is left to list
                self.retry(key)
                return
            items = []
        if not items:
            finalizers = [f for f in crd["metadata"].get("finalizers") or [] if f != CLEANUP_FINALIZER]
            self.write({"verb": "patch", "kind": KIND, "name": key, "options": {"patchType": "json"},
                        "object": [{"op": "test", "path": "/metadata/resourceVersion",
                                    "value": crd["metadata"]["resourceVersion"]},
                                   {"op": "replace", "path": "/metadata/finalizers", "value": finalizers}]},
                       lambda r: self.retry(key) if isinstance(r, StatusError) and r.reason != "NotFound" else None)
            return
        for obj in items:
            meta = obj["metadata"]
            if not meta.get("deletionTimestamp"):
                self.write({"verb": "delete", "kind": obj["kind"], "namespace": meta.get("namespace"),
                            "name": meta["name"], "options": {}})
        self.queue.add_after(key, CLEANUP_POLL_S)
        self.kick()
