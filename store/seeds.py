"""The `kubernetes` Service's endpoint, kept by the store beside the Service it seeds (store/state.py
`seed_services`), as kube-apiserver's "master" endpoint reconciler keeps its own address there: one
Endpoints and one EndpointSlice named `kubernetes` in `default`, naming the address the gateway listens
on for pods (`Settings.api_service_ip`:443, docs/security.md "In-cluster access"). Made when missing and
brought back to that address at every start (a changed service range moves it)."""
from __future__ import annotations

from api.service import SERVICE_NAME_LABEL
from store.state import State

NAMESPACE, NAME, PORT_NAME = "default", "kubernetes", "https"


def api_endpoints(ip: str, port: int) -> dict:
    return {"apiVersion": "v1", "kind": "Endpoints",
            "metadata": {"name": NAME, "namespace": NAMESPACE,
                         "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"}},
            "subsets": [{"addresses": [{"ip": ip}], "ports": [{"name": PORT_NAME, "port": port, "protocol": "TCP"}]}]}


def api_endpoint_slice(ip: str, port: int) -> dict:
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": NAME, "namespace": NAMESPACE, "labels": {SERVICE_NAME_LABEL: NAME}},
            "addressType": "IPv4", "endpoints": [{"addresses": [ip], "conditions": {"ready": True}}],
            "ports": [{"name": PORT_NAME, "port": port, "protocol": "TCP"}]}


def seed_api_endpoints(state: State, ip: str, port: int) -> None:
    """Create, or bring back to `ip:port`, the Service's Endpoints and EndpointSlice."""
    for kind, wanted in (("Endpoints", api_endpoints(ip, port)), ("EndpointSlice", api_endpoint_slice(ip, port))):
        entry = state.objects.get((kind, NAMESPACE, NAME))
        if entry is None:
            state.create(kind, NAMESPACE, wanted)
            continue
        current = {k: v for k, v in entry.obj.items() if k not in ("metadata", "apiVersion", "kind")}
        if current != {k: v for k, v in wanted.items() if k not in ("metadata", "apiVersion", "kind")}:
            meta = {**entry.obj["metadata"], "labels": {**(entry.obj["metadata"].get("labels") or {}),
                                                         **wanted["metadata"]["labels"]}}
            state.update(kind, NAMESPACE, {**wanted, "metadata": meta}, meta["resourceVersion"])
