"""The EndpointSlice controller (`endpointslice-controller.k8s.io`): for each Service with a selector,
slices of its pods' endpoints — ready / serving / terminating, named ports resolved per pod, the
node's zone — kept up to date as pods, nodes and the Service change. Its own writes are tracked so a
reconcile never works from a cache that has not seen them yet (Kubernetes' endpointSliceTracker)."""
from __future__ import annotations

from typing import Any

from actors.controllers import endpointsets, slicing
from actors.controllers.base import Controller
from api.service import MANAGED_BY_LABEL, SERVICE_NAME_LABEL
from api.status import StatusError
from runtime.cache import Delta


class EndpointSliceController(Controller):
    name = "controller.endpointslice"
    kinds = ("service", "pod", "node", "endpointslice")

    def __init__(self, settings, max_per_slice: int = 100, **kw: Any):
        super().__init__(settings, **kw)
        self.max_per_slice = max_per_slice
        self.awaited: dict[str, dict[str, int | None]] = {}  # service key -> slice name -> rv written (None: gone)
        self.writing: dict[str, int] = {}  # service key -> writes in flight

    def on_active(self) -> None:
        super().on_active()
        self.awaited, self.writing = {}, {}

    # ---- which Services a change concerns ------------------------------------------------------
    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        meta = delta.object["metadata"]
        namespace = meta.get("namespace") or ""
        if delta.kind == "Service":
            return [f"{namespace}/{meta['name']}"]
        if delta.kind == "EndpointSlice":
            service = (meta.get("labels") or {}).get(SERVICE_NAME_LABEL)
            if service:
                self._observed(f"{namespace}/{service}", delta)
            return [f"{namespace}/{service}"] if service else []
        if delta.kind == "Pod":
            pods = [delta.object] + ([old] if old else [])
            return sorted({f"{namespace}/{s['metadata']['name']}" for s in self.in_namespace("Service", namespace)
                           if endpointsets.selected(s) and endpointsets.pods_of(s, pods)})
        return []  # a node's zone shows at the next change of its pods

    # ---- reconcile ----------------------------------------------------------------------------------
    def reconcile(self, key: str) -> None:
        namespace, _, name = key.partition("/")
        service = self.get("Service", namespace, name)
        if service is None or not endpointsets.selected(service) or self.writing.get(key) or self._stale(key):
            return
        mine = [s for s in self._slices(namespace, name)
                if s["metadata"].get("ownerReferences", [{}])[0].get("uid") == service["metadata"]["uid"]]
        foreign = [s for s in self._slices(namespace, name) if s not in mine]
        plan = slicing.plan(service, self._desired(service), mine, self.max_per_slice)
        plan.delete += foreign  # an old Service's of the same name
        if service["metadata"].get("deletionTimestamp"):
            plan.create = []
        if not plan.empty():
            self._apply(key, plan)

    def _slices(self, namespace: str, name: str) -> list[dict]:
        return [s for s in self.in_namespace("EndpointSlice", namespace)
                if (s["metadata"].get("labels") or {}).get(SERVICE_NAME_LABEL) == name
                and (s["metadata"].get("labels") or {}).get(MANAGED_BY_LABEL) == slicing.MANAGED_BY
                and not s["metadata"].get("deletionTimestamp")]

    def _desired(self, service: dict) -> dict[tuple, tuple[list[dict], list[dict]]]:
        namespace = service["metadata"].get("namespace") or ""
        groups = endpointsets.by_ports(service, self.in_namespace("Pod", namespace))
        return {key: (endpointsets.slice_ports(key), [e.as_slice_endpoint(self._zone(e.pod)) for e in endpoints])
                for key, endpoints in groups.items()}

    def _zone(self, pod: dict) -> str | None:
        node = self.get("Node", "", pod["spec"].get("nodeName") or "")
        return ((node or {}).get("metadata", {}).get("labels") or {}).get(endpointsets.ZONE_LABEL)

    # ---- writes and the tracker ------------------------------------------------------------------
    def _apply(self, key: str, plan: slicing.Plan) -> None:
        self.log.info("endpointslice.sync", service=key, create=len(plan.create), update=len(plan.update),
                      delete=len(plan.delete))
        writes = [("create", s) for s in plan.create] + [("update", s) for s in plan.update] + \
                 [("delete", s) for s in plan.delete]
        self.writing[key] = len(writes)
        for verb, obj in writes:
            meta = obj["metadata"]
            body = {"verb": verb, "kind": "EndpointSlice", "namespace": meta.get("namespace"), "name": meta.get("name")}
            if verb != "delete":
                body["object"] = obj
            self.write(body, lambda result, v=verb, n=meta.get("name"): self._written(key, v, n, result))

    def _written(self, key: str, verb: str, name: str | None, result: dict | StatusError) -> None:
        self.writing[key] -= 1
        if isinstance(result, StatusError):
            if not (verb == "delete" and result.reason == "NotFound"):
                self.log.info("endpointslice.write_failed", service=key, verb=verb, slice=name, reason=result.reason,
                              message=result.message[:200])
                self.retry(key)
        else:
            name = name if verb == "delete" else result["metadata"]["name"]
            rv = None if verb == "delete" else int(result["metadata"]["resourceVersion"])
            if not self._seen(key.partition("/")[0], name, rv):
                self.awaited.setdefault(key, {})[name] = rv
        if not self.writing[key]:
            del self.writing[key]
            self.queue.add(key)
            self.kick()

    def _seen(self, namespace: str, name: str, rv: int | None) -> bool:
        cached = self.get("EndpointSlice", namespace, name)
        if rv is None:
            return cached is None
        return cached is not None and int(cached["metadata"]["resourceVersion"]) >= rv

    def _observed(self, key: str, delta: Delta) -> None:
        """An event of one of our slices: a write we wait for may now be in the cache."""
        waiting = self.awaited.get(key, {})
        name = delta.object["metadata"]["name"]
        if name in waiting and (delta.type == "DELETED" or waiting[name] is not None and
                                int(delta.object["metadata"]["resourceVersion"]) >= waiting[name]):
            del waiting[name]

    def _stale(self, key: str) -> bool:
        """Some write of ours is not in the cache yet: its event will queue the Service again."""
        return bool(self.awaited.get(key))
