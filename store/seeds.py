"""The `kubernetes` Service's endpoint, kept by the store beside the Service it seeds (`seed_services`
below), as kube-apiserver's "master" endpoint reconciler keeps its own address there: one
Endpoints and one EndpointSlice named `kubernetes` in `default`, naming the address the gateway listens
on for pods (`Settings.api_service_ip`:443, docs/security.md "In-cluster access"). Made when missing and
brought back to that address at every start (a changed service range moves it)."""
from __future__ import annotations

import ipaddress

from api.service import SERVICE_NAME_LABEL
from store.state import State

NAMESPACE, NAME, PORT_NAME = "default", "kubernetes", "https"


def seed_services(state: State, api_port: int) -> None:
    """`default/kubernetes` on the range's first address and `kube-system/kube-dns` on its tenth, as
    kube-apiserver and kubeadm make them; neither has a selector (the DNS actor answers for the second)."""
    first = state.allocation.ips.base
    for namespace, name, offset, labels, ports in (
            ("default", "kubernetes", 0, {"component": "apiserver", "provider": "kubernetes"},
             [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": api_port}]),
            ("kube-system", "kube-dns", 9, {"k8s-app": "kube-dns", "kubernetes.io/name": "CoreDNS"},
             [{"name": "dns", "port": 53, "protocol": "UDP", "targetPort": 53},
              {"name": "dns-tcp", "port": 53, "protocol": "TCP", "targetPort": 53}])):
        ip = str(ipaddress.IPv4Address(first + offset))
        if ("Service", namespace, name) not in state.objects and first + offset not in state.allocation.ips.used:
            state.create("Service", namespace, {
                "apiVersion": "v1", "kind": "Service",
                "metadata": {"name": name, "namespace": namespace, "labels": labels},
                "spec": {"type": "ClusterIP", "clusterIP": ip, "clusterIPs": [ip], "sessionAffinity": "None",
                         "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack",
                         "internalTrafficPolicy": "Cluster", "ports": ports}})


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
