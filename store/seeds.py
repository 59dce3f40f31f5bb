"""The Services the store seeds (`seed_services`) and the endpoints of the two a kubus actor serves at
their own ClusterIP, kept by the store as kube-apiserver's "master" endpoint reconciler keeps its own
address: `default/kubernetes` (the gateway, `Settings.api_service_ip`:443) and `kube-system/kubus-broker`
(the gateway's relay to the broker, `Settings.broker_service_ip`:5672; docs/security.md "In-cluster
access"). For each, one Endpoints and one EndpointSlice named as the Service, naming that address: made
when missing and brought back to it at every start (a changed service range moves it)."""
from __future__ import annotations

import ipaddress

from api.service import SERVICE_NAME_LABEL
from store.state import State

NAMESPACE, NAME, PORT_NAME = "default", "kubernetes", "https"
BROKER_NAMESPACE, BROKER_NAME, BROKER_PORT_NAME = "kube-system", "kubus-broker", "amqp"


def seed_services(state: State, api_port: int, broker_port: int) -> None:
    """`default/kubernetes` on the range's first address and `kube-system/kube-dns` on its tenth, as
    kube-apiserver and kubeadm make them, and `kube-system/kubus-broker` on its second; none has a
    selector (the gateway and the DNS actor answer for them)."""
    first = state.allocation.ips.base
    for namespace, name, offset, labels, ports in (
            ("default", "kubernetes", 0, {"component": "apiserver", "provider": "kubernetes"},
             [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": api_port}]),
            (BROKER_NAMESPACE, BROKER_NAME, 1, {"app.kubernetes.io/name": BROKER_NAME},
             [{"name": BROKER_PORT_NAME, "port": broker_port, "protocol": "TCP", "targetPort": broker_port}]),
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


def own_endpoints(ip: str, port: int, namespace: str = NAMESPACE, name: str = NAME,
                  port_name: str = PORT_NAME) -> dict:
    return {"apiVersion": "v1", "kind": "Endpoints",
            "metadata": {"name": name, "namespace": namespace,
                         "labels": {"endpointslice.kubernetes.io/skip-mirror": "true"}},
            "subsets": [{"addresses": [{"ip": ip}], "ports": [{"name": port_name, "port": port, "protocol": "TCP"}]}]}


def own_endpoint_slice(ip: str, port: int, namespace: str = NAMESPACE, name: str = NAME,
                       port_name: str = PORT_NAME) -> dict:
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"name": name, "namespace": namespace, "labels": {SERVICE_NAME_LABEL: name}},
            "addressType": "IPv4", "endpoints": [{"addresses": [ip], "conditions": {"ready": True}}],
            "ports": [{"name": port_name, "port": port, "protocol": "TCP"}]}


def seed_api_endpoints(state: State, ip: str, port: int) -> None:
    """`default/kubernetes`'s Endpoints and EndpointSlice, made or brought back to `ip:port`."""
    seed_own_endpoints(state, ip, port, NAMESPACE, NAME, PORT_NAME)


def seed_broker_endpoints(state: State, ip: str, port: int) -> None:
    """`kube-system/kubus-broker`'s, likewise."""
    seed_own_endpoints(state, ip, port, BROKER_NAMESPACE, BROKER_NAME, BROKER_PORT_NAME)


def seed_own_endpoints(state: State, ip: str, port: int, namespace: str, name: str, port_name: str) -> None:
    """Create, or bring back to `ip:port`, a Service's Endpoints and EndpointSlice."""
    for kind, wanted in (("Endpoints", own_endpoints(ip, port, namespace, name, port_name)),
                         ("EndpointSlice", own_endpoint_slice(ip, port, namespace, name, port_name))):
        entry = state.objects.get((kind, namespace, name))
        if entry is None:
            state.create(kind, namespace, wanted)
            continue
        current = {k: v for k, v in entry.obj.items() if k not in ("metadata", "apiVersion", "kind")}
        if current != {k: v for k, v in wanted.items() if k not in ("metadata", "apiVersion", "kind")}:
            meta = {**entry.obj["metadata"], "labels": {**(entry.obj["metadata"].get("labels") or {}),
                                                         **wanted["metadata"]["labels"]}}
            state.update(kind, namespace, {**wanted, "metadata": meta}, meta["resourceVersion"])
