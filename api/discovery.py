"""EndpointSlice (discovery.k8s.io/v1): the endpoints of a Service, in slices the proxy, DNS and ingress read."""
from __future__ import annotations

from api.meta import K8sModel, Resource


class EndpointConditions(K8sModel):
    ready: bool | None = None
    serving: bool | None = None
    terminating: bool | None = None


class Endpoint(K8sModel):
    addresses: list[str]
    conditions: EndpointConditions | None = None
    hostname: str | None = None
    targetRef: dict | None = None
    nodeName: str | None = None
    zone: str | None = None


class EndpointPort(K8sModel):
    name: str | None = None
    protocol: str | None = None
    port: int | None = None
    appProtocol: str | None = None


class EndpointSlice(Resource):
    API_VERSION = "discovery.k8s.io/v1"
    KIND = "EndpointSlice"
    addressType: str
    endpoints: list[Endpoint] | None = None
    ports: list[EndpointPort] | None = None


def conditions(endpoint: dict) -> tuple[bool, bool, bool]:
    """An endpoint's (ready, serving, terminating) as discovery/v1 reads them: a nil ready or serving
    is true, a nil terminating false. The proxy and DNS both read it so."""
    c = endpoint.get("conditions") or {}
    return c.get("ready") is not False, c.get("serving") is not False, c.get("terminating") is True


def ready(endpoint: dict) -> bool:
    """Whether an endpoint takes new connections (a nil `ready` reads as true)."""
    return conditions(endpoint)[0]


def usable(slices: list[dict], port_name: str, protocol: str) -> tuple[tuple[str, int], ...]:
    """The ready endpoints of the port, else the serving-terminating ones (deduplicated by ip:port,
    the non-terminating one winning; nil ready/serving read as true, nil terminating as false)."""
    found: dict[tuple[str, int], tuple[bool, bool, bool]] = {}
    for s in slices:
        number = next((p.get("port") for p in s.get("ports") or []
                       if (p.get("name") or "") == port_name and p.get("protocol", "TCP") == protocol), None)
        if not number:
            continue
        for e in s.get("endpoints") or []:
            if not e.get("addresses"):
                continue
            state = conditions(e)
            key = (e["addresses"][0], number)
            if key not in found or found[key][2] and not state[2]:
                found[key] = state
    ready = [k for k, (r, _, _) in found.items() if r]
    chosen = ready or [k for k, (_, serving, terminating) in found.items() if serving and terminating]
    return tuple(sorted(chosen, key=lambda k: f"{k[0]}:{k[1]}"))
