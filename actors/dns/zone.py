"""What the cluster DNS knows: Services, their EndpointSlices (joined by `kubernetes.io/service-name`)
and Namespaces, as plain dicts from the DNS actor's cache, with the lookups its answers need."""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from api.discovery import ready
from api.service import HEADLESS, SERVICE_NAME_LABEL


@dataclass(frozen=True)
class Endpoint:
    address: str
    hostname: str | None
    ports: tuple[tuple[str, str, int], ...]  # (name, protocol, port) of its slice

    @property
    def label(self) -> str:
        """Its name under the Service: its hostname, else its address with dashes (CoreDNS)."""
        return self.hostname or self.address.replace(".", "-").replace(":", "-")


class Zone:
    def __init__(self, domain: str = "cluster.local", ttl: int = 5, clock: Callable[[], float] = time.time):
        self.domain, self.ttl, self.clock = domain.lower().strip("."), ttl, clock
        self.services: dict[tuple[str, str], dict] = {}
        self.slices: dict[tuple[str, str], dict[str, dict]] = {}
        self.namespaces: set[str] = set()
        self.serial = int(clock())

    def apply(self, kind: str, obj: dict) -> None:
        self._change(kind, obj, gone=False)

    def remove(self, kind: str, obj: dict) -> None:
        self._change(kind, obj, gone=True)

    def _change(self, kind: str, obj: dict, gone: bool) -> None:
        meta = obj["metadata"]
        ns, name = meta.get("namespace") or "", meta["name"]
        if kind == "Namespace":
            (self.namespaces.discard if gone else self.namespaces.add)(name)
        elif kind == "Service":
            if gone:
                self.services.pop((ns, name), None)
            else:
                self.services[(ns, name)] = obj
        elif kind == "EndpointSlice":
            owner = (meta.get("labels") or {}).get(SERVICE_NAME_LABEL)
            if owner:
                found = self.slices.setdefault((ns, owner), {})
                if gone:
                    found.pop(name, None)
                else:
                    found[name] = obj
        self.serial = int(self.clock())

    # ---- lookups ----------------------------------------------------------------------------------
    def service(self, namespace: str, name: str) -> dict | None:
        return self.services.get((namespace, name))

    def ready_endpoints(self, namespace: str, service: str) -> list[Endpoint]:
        """Endpoints whose `ready` is true or unset (CoreDNS keeps only those)."""
        out = []
        for s in self.slices.get((namespace, service), {}).values():
            ports = tuple((p.get("name") or "", (p.get("protocol") or "TCP"), p["port"])
                          for p in s.get("ports") or [] if p.get("port"))
            for e in s.get("endpoints") or []:
                if ready(e):
                    out += [Endpoint(a, e.get("hostname"), ports) for a in e.get("addresses") or []]
        return out

    def names_of(self, address: str) -> list[str]:
        """PTR targets of an address: the Service whose ClusterIP it is, else each endpoint with it."""
        for (ns, name), svc in sorted(self.services.items()):
            if address in ((svc.get("spec") or {}).get("clusterIPs") or [(svc.get("spec") or {}).get("clusterIP")]):
                return [f"{name}.{ns}.svc.{self.domain}"]
        found = []
        for (ns, name) in sorted(self.slices):
            found += [f"{e.label}.{name}.{ns}.svc.{self.domain}" for e in self.ready_endpoints(ns, name)
                      if e.address == address]
        return found


def headless(service: dict) -> bool:
    return (service.get("spec") or {}).get("clusterIP") in (HEADLESS, "", None)
