"""The Endpoints controller (`endpoint-controller`): the legacy core/v1 Endpoints object of each
Service with a selector, still written by Kubernetes 1.33 for tools that read it — ready pods in
`addresses`, not-ready ones in `notReadyAddresses`, terminating ones left out (all in `addresses`
with `publishNotReadyAddresses`), subsets grouped by port set, at most 1000 addresses."""
from __future__ import annotations

from actors.controllers import endpointsets
from actors.controllers.base import Controller
from api.service import HEADLESS, HEADLESS_LABEL
from api.status import StatusError
from runtime.cache import Delta

MAX_ADDRESSES = 1000
TRUNCATED = "endpoints.kubernetes.io/over-capacity"


def subsets(service: dict, pods: list[dict]) -> tuple[list[dict], bool]:
    """The subsets, and whether they were cut to MAX_ADDRESSES (not-ready addresses go first)."""
    publish = bool((service.get("spec") or {}).get("publishNotReadyAddresses"))
    out, total = [], 0
    for ports, endpoints in sorted(endpointsets.by_ports(service, pods).items()):
        ready = [_address(e) for e in endpoints if publish or (e.serving and not e.terminating)]
        waiting = [] if publish else [_address(e) for e in endpoints if not e.serving and not e.terminating]
        subset = {"ports": [{k: v for k, v in p.items() if v not in ("", None)}
                            for p in endpointsets.slice_ports(ports)]}
        if ready:
            subset["addresses"] = ready
        if waiting:
            subset["notReadyAddresses"] = waiting
        if ready or waiting:
            out.append(subset)
            total += len(ready) + len(waiting)
    return _truncated(out, total)


def _address(endpoint: endpointsets.PodEndpoint) -> dict:
    meta = endpoint.pod["metadata"]
    address = {"ip": endpoint.address, "targetRef": {"kind": "Pod", "namespace": meta.get("namespace", ""),
                                                     "name": meta["name"], "uid": meta["uid"]}}
    if endpoint.pod["spec"].get("nodeName"):
        address["nodeName"] = endpoint.pod["spec"]["nodeName"]
    if endpoint.hostname:
        address["hostname"] = endpoint.hostname
    return address


def _truncated(subsets_: list[dict], total: int) -> tuple[list[dict], bool]:
    if total <= MAX_ADDRESSES:
        return subsets_, False
    budget = MAX_ADDRESSES
    for subset in subsets_:
        subset["addresses"] = subset.get("addresses", [])[:budget]
        budget -= len(subset["addresses"])
    for subset in subsets_:
        subset["notReadyAddresses"] = subset.get("notReadyAddresses", [])[:budget]
        budget -= len(subset["notReadyAddresses"])
    return [{k: v for k, v in s.items() if v or k == "ports"} for s in subsets_], True


class EndpointsController(Controller):
    name = "controller.endpoints"
    kinds = ("service", "pod", "endpoints")

    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        meta = delta.object["metadata"]
        namespace = meta.get("namespace") or ""
        if delta.kind in ("Service", "Endpoints"):
            return [f"{namespace}/{meta['name']}"]
        pods = [delta.object] + ([old] if old else [])
        return sorted({f"{namespace}/{s['metadata']['name']}" for s in self.in_namespace("Service", namespace)
                       if endpointsets.selected(s) and endpointsets.pods_of(s, pods)})

    def reconcile(self, key: str) -> None:
        namespace, _, name = key.partition("/")
        service, current = self.get("Service", namespace, name), self.get("Endpoints", namespace, name)
        if service is None or not endpointsets.selected(service):
            if service is None and current is not None:
                self._write(key, {"verb": "delete", "kind": "Endpoints", "namespace": namespace, "name": name})
            return
        wanted = self._wanted(service)
        if current is None:
            self._write(key, {"verb": "create", "kind": "Endpoints", "namespace": namespace, "object": wanted})
        elif (current.get("subsets") or []) != wanted["subsets"] or \
                current["metadata"].get("labels") != wanted["metadata"]["labels"] or \
                (current["metadata"].get("annotations") or {}).get(TRUNCATED) != \
                (wanted["metadata"].get("annotations") or {}).get(TRUNCATED):
            meta = {**current["metadata"], "labels": wanted["metadata"]["labels"],
                    "annotations": {**{k: v for k, v in (current["metadata"].get("annotations") or {}).items()
                                       if k != TRUNCATED}, **(wanted["metadata"].get("annotations") or {})}}
            self._write(key, {"verb": "update", "kind": "Endpoints", "namespace": namespace, "name": name,
                              "object": {**current, "metadata": meta, "subsets": wanted["subsets"]}})

    def _wanted(self, service: dict) -> dict:
        meta = service["metadata"]
        found, cut = subsets(service, self.in_namespace("Pod", meta.get("namespace") or ""))
        labels = dict(meta.get("labels") or {})
        if (service.get("spec") or {}).get("clusterIP") in (HEADLESS, "", None):
            labels[HEADLESS_LABEL] = ""
        out = {"apiVersion": "v1", "kind": "Endpoints",
               "metadata": {"name": meta["name"], "namespace": meta.get("namespace"), "labels": labels},
               "subsets": found}
        if cut:
            out["metadata"]["annotations"] = {TRUNCATED: "truncated"}
        return out

    def _write(self, key: str, body: dict) -> None:
        def done(result: dict | StatusError) -> None:
            if isinstance(result, StatusError) and result.reason != "NotFound":
                self.log.info("endpoints.write_failed", service=key, verb=body["verb"], reason=result.reason,
                              message=result.message[:200])
                self.retry(key)
        self.write(body, done)
