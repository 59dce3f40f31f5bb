"""Where an Ingress backend's traffic goes: its Service's port (by number or by name) and that port's
usable endpoints, read from the ingress actor's cache of Services and EndpointSlices (the proxy's
rules, `api.discovery.usable`: ready endpoints, else serving-terminating ones)."""
from __future__ import annotations

from api.discovery import usable
from api.service import SERVICE_NAME_LABEL


class Backends:
    def __init__(self) -> None:
        self.services: dict[tuple[str, str], dict] = {}
        self.slices: dict[tuple[str, str], dict[str, dict]] = {}  # (ns, service) -> slice name -> slice

    def apply(self, kind: str, obj: dict, gone: bool) -> None:
        meta = obj["metadata"]
        ns = meta.get("namespace") or ""
        if kind == "Service":
            if gone:
                self.services.pop((ns, meta["name"]), None)
            else:
                self.services[(ns, meta["name"])] = obj
            return
        owner = (meta.get("labels") or {}).get(SERVICE_NAME_LABEL)
        if owner:
            found = self.slices.setdefault((ns, owner), {})
            if gone:
                found.pop(meta["name"], None)
            else:
                found[meta["name"]] = obj

    def endpoints(self, namespace: str, service: str, port: int | str) -> tuple[tuple[str, int], ...] | None:
        """The endpoints of the Service port; None when the Service or the port does not exist."""
        svc = self.services.get((namespace, service))
        spec = (svc or {}).get("spec") or {}
        chosen = next((p for p in spec.get("ports") or []
                       if (p.get("name") == port if isinstance(port, str) else p.get("port") == port)), None)
        if chosen is None:
            return None
        slices = list(self.slices.get((namespace, service), {}).values())
        return usable(slices, chosen.get("name") or "", chosen.get("protocol", "TCP"))
