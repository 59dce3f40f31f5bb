"""What the service proxy forwards (pure logic, kube-proxy's endpoint map and CategorizeEndpoints):
for each TCP and UDP port of each proxied Service, the listening addresses (ClusterIP:port, and the node
port on the host's loopback) and the endpoints that take new connections — the ready ones, else the
serving-terminating ones; none means connections are refused. Only IPv4 slices count."""
from __future__ import annotations

from dataclasses import dataclass

from api.discovery import usable
from api.service import HEADLESS, SERVICE_NAME_LABEL

SKIP_LABELS = ("service.kubernetes.io/service-proxy-name", "service.kubernetes.io/headless")
ADDRESS_TYPE = "IPv4"  # the family the proxy serves (ClusterIPs, pods); slices of others are skipped
NODE_PORT_HOST = "127.0.0.1"  # iptables' localhost node ports (nftables has none): the host's own clients


@dataclass(frozen=True)
class Port:
    """One Service port as the proxy serves it."""

    service: str  # namespace/name:port-name, for logs
    endpoints: tuple[tuple[str, int], ...]  # (ip, port), sorted by "ip:port"
    affinity_s: int  # 0: none, else ClientIP stickiness in seconds


Table = dict[tuple[str, int, str], Port]  # listening (ip, port, protocol) -> what it forwards to
PROXIED = ("TCP", "UDP")


def proxied(service: dict) -> bool:
    spec = service.get("spec") or {}
    labels = service["metadata"].get("labels") or {}
    return spec.get("type") != "ExternalName" and spec.get("clusterIP") not in (None, "", HEADLESS) \
        and not any(k in labels for k in SKIP_LABELS)


def other_family(endpoint_slice: dict) -> bool:
    """A slice of addresses the proxy cannot forward to (IPv6, FQDN): kube-proxy's proxier of one
    family ignores the other family's slices, and none takes FQDN ones."""
    return endpoint_slice.get("addressType") != ADDRESS_TYPE


def build(services: list[dict], slices: list[dict]) -> Table:
    by_service: dict[tuple[str, str], list[dict]] = {}
    for s in slices:
        name = (s["metadata"].get("labels") or {}).get(SERVICE_NAME_LABEL)
        if name and not other_family(s) and not any(k in (s["metadata"].get("labels") or {}) for k in SKIP_LABELS):
            by_service.setdefault((s["metadata"].get("namespace") or "", name), []).append(s)
    table: Table = {}
    for svc in services:
        if proxied(svc):
            key = (svc["metadata"].get("namespace") or "", svc["metadata"]["name"])
            table.update(_service_ports(svc, by_service.get(key, [])))
    return table


def _service_ports(svc: dict, slices: list[dict]) -> Table:
    spec = svc["spec"]
    affinity = ((spec.get("sessionAffinityConfig") or {}).get("clientIP") or {}).get("timeoutSeconds", 10800) \
        if spec.get("sessionAffinity") == "ClientIP" else 0
    out: Table = {}
    for port in spec.get("ports") or []:
        protocol = port.get("protocol", "TCP")
        if protocol not in PROXIED:
            continue  # SCTP is not proxied (docs/networking.md)
        name = port.get("name") or ""
        served = Port(f"{svc['metadata'].get('namespace')}/{svc['metadata']['name']}:{name}",
                      usable(slices, name, protocol), affinity)
        if served.endpoints == ((spec["clusterIP"], port["port"]),):
            continue  # served at its own address (the gateway on `kubernetes`'): nothing to forward
        out[(spec["clusterIP"], port["port"], protocol)] = served
        if port.get("nodePort"):
            out[(NODE_PORT_HOST, port["nodePort"], protocol)] = served
    return out
