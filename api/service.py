"""Service and Endpoints (core/v1), Ingress and IngressClass (networking.k8s.io/v1): the kinds of the
networking half of the journey (EndpointSlice is in `api.discovery`), and what a Service update keeps."""
from __future__ import annotations

from api.meta import K8sModel, Resource

HEADLESS = "None"  # spec.clusterIP of a Service with no virtual IP
NEEDS_NODE_PORTS = ("NodePort", "LoadBalancer")
SERVICE_NAME_LABEL = "kubernetes.io/service-name"
MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by"
HEADLESS_LABEL = "service.kubernetes.io/headless"


class ServicePort(K8sModel):
    name: str | None = None
    protocol: str | None = None
    appProtocol: str | None = None
    port: int
    targetPort: int | str | None = None
    nodePort: int | None = None


class ServiceSpec(K8sModel):
    type: str | None = None
    selector: dict[str, str] | None = None
    ports: list[ServicePort] | None = None
    clusterIP: str | None = None
    clusterIPs: list[str] | None = None
    externalName: str | None = None
    externalIPs: list[str] | None = None
    sessionAffinity: str | None = None
    sessionAffinityConfig: dict | None = None
    publishNotReadyAddresses: bool | None = None
    externalTrafficPolicy: str | None = None
    internalTrafficPolicy: str | None = None
    ipFamilies: list[str] | None = None
    ipFamilyPolicy: str | None = None


class Service(Resource):
    KIND = "Service"
    spec: ServiceSpec | None = None
    status: dict | None = None


class Endpoints(Resource):
    KIND = "Endpoints"
    subsets: list[dict] | None = None


class Ingress(Resource):
    API_VERSION = "networking.k8s.io/v1"
    KIND = "Ingress"
    spec: dict | None = None
    status: dict | None = None


class IngressClass(Resource):
    API_VERSION = "networking.k8s.io/v1"
    KIND = "IngressClass"
    spec: dict | None = None


def needs_cluster_ip(spec: dict) -> bool:
    """A Service gets a virtual IP unless it is headless or ExternalName."""
    return spec.get("type", "ClusterIP") != "ExternalName" and spec.get("clusterIP") != HEADLESS


def carry(old: dict, new: dict) -> None:
    """An update keeps what was allocated where it leaves it out (Kubernetes' patchAllocatedValues), and
    lets go of what the new type needs no more where it left it unchanged (dropTypeDependentFields)."""
    old_spec, spec = old.get("spec") or {}, new.get("spec")
    if not isinstance(spec, dict):
        return
    if needs_cluster_ip(old_spec) and needs_cluster_ip(spec) and not spec.get("clusterIP"):
        for field in ("clusterIP", "clusterIPs"):
            if field in old_spec:
                spec[field] = old_spec[field]
    if needs_cluster_ip(old_spec) and not needs_cluster_ip(spec) and spec.get("type") == "ExternalName":
        for field in ("clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"):
            if spec.get(field) == old_spec.get(field):
                spec.pop(field, None)
    old_types = (old_spec.get("type"), spec.get("type"))
    if old_types[0] in NEEDS_NODE_PORTS:
        spec["ports"] = _carry_node_ports(old_spec, spec, keep=old_types[1] in NEEDS_NODE_PORTS)


def _carry_node_ports(old_spec: dict, spec: dict, keep: bool) -> list[dict]:
    old_by_name = {p.get("name") or "": p.get("nodePort") for p in old_spec.get("ports") or []}
    in_use = set(node_ports(spec))
    out = []
    for port in spec.get("ports") or []:
        old_value = old_by_name.get(port.get("name") or "")
        if keep and not port.get("nodePort") and old_value and old_value not in in_use:
            port = {**port, "nodePort": old_value}
        elif not keep and port.get("nodePort") and port.get("nodePort") == old_value:
            port = {k: v for k, v in port.items() if k != "nodePort"}
        out.append(port)
    return out


def node_ports(spec: dict) -> list[int]:
    return [p["nodePort"] for p in spec.get("ports") or [] if isinstance(p.get("nodePort"), int)]
