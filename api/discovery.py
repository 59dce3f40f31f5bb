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
