"""Service validation with Kubernetes' field paths and wording (`pkg/apis/core/validation`
validateService), as far as kubus's single-stack IPv4 cluster reaches."""
from __future__ import annotations

import ipaddress
import json

from api import names
from api.service import HEADLESS, NEEDS_NODE_PORTS
from api.status import Cause

TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
PROTOCOLS = ("SCTP", "TCP", "UDP")
AFFINITIES = ("ClientIP", "None")
TRAFFIC_POLICIES = ("Cluster", "Local")
MAX_AFFINITY_SECONDS = 86400


def show(value) -> str:
    """A value as Kubernetes prints it in a field error: strings quoted, lists and maps as JSON."""
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, dict)):
        return json.dumps(value, separators=(",", ":"))
    return json.dumps(value) if isinstance(value, bool) else str(value)


def invalid(path: str, value, detail: str) -> Cause:
    return Cause(path, f"Invalid value: {show(value)}: {detail}")


def unsupported(path: str, value, supported: tuple[str, ...]) -> Cause:
    listed = ", ".join(f'"{s}"' for s in supported)
    return Cause(path, f"Unsupported value: {show(value)}: supported values: {listed}", "FieldValueNotSupported")


def required(path: str) -> Cause:
    return Cause(path, "Required value", "FieldValueRequired")


def forbidden(path: str, detail: str) -> Cause:
    return Cause(path, f"Forbidden: {detail}", "FieldValueForbidden")


def duplicate(path: str, value) -> Cause:
    return Cause(path, f"Duplicate value: {show(value)}", "FieldValueDuplicate")


def validate_service(obj: dict) -> list[Cause]:
    spec = obj.get("spec") or {}
    kind = spec.get("type", "ClusterIP")
    if kind not in TYPES:
        return [unsupported("spec.type", kind, TYPES)]
    causes = _cluster_ips(spec, kind) + _ports(spec, kind) + _affinity(spec) + _traffic(spec, kind)
    causes += _selector(spec.get("selector"))
    if kind == "ExternalName":
        causes += _external_name(spec)
    return causes


def _cluster_ips(spec: dict, kind: str) -> list[Cause]:
    ip, ips = spec.get("clusterIP") or "", spec.get("clusterIPs") or []
    path = "spec.clusterIPs"
    if kind == "ExternalName":
        return [forbidden(f, "may not be set for ExternalName services")
                for f, v in ((path, ip or ips), ("spec.ipFamilies", spec.get("ipFamilies")),
                             ("spec.ipFamilyPolicy", spec.get("ipFamilyPolicy"))) if v]
    if ips and not ip:
        return [invalid(path, ips, "must be empty when `clusterIP` is not specified")]
    if ips and ips[0] != ip:
        return [invalid(path, ips, "first value must match `clusterIP`")]
    ips = ips or ([ip] if ip else [])
    if HEADLESS in ips:
        if ips != [HEADLESS]:
            return [invalid(path, ips, "'None' must be the first and only value")]
        if kind in NEEDS_NODE_PORTS:
            return [invalid(f"{path}[0]", HEADLESS, f"may not be set to 'None' for {kind} services")]
        return []
    if len(ips) > 2:
        return [invalid(path, ips, "may only hold up to 2 values")]
    return [c for i, value in enumerate(ips) for c in _ip(f"{path}[{i}]", value)]


def _ip(path: str, value: str) -> list[Cause]:
    try:
        parsed = ipaddress.ip_address(value)
    except ValueError:
        return [invalid(path, value, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")]
    if parsed.version == 6:
        return [invalid(path, value, "IPv6 is not configured on this cluster")]
    return []


def _ports(spec: dict, kind: str) -> list[Cause]:
    ports = spec.get("ports") or []
    if not ports:
        needed = kind != "ExternalName" and spec.get("clusterIP") != HEADLESS
        return [required("spec.ports")] if needed else []
    causes: list[Cause] = []
    seen_names, seen_ports, seen_node_ports = set(), set(), set()
    for i, port in enumerate(ports):
        path = f"spec.ports[{i}]"
        causes += _port(path, port, kind, many=len(ports) > 1)
        name, key = port.get("name") or "", (port.get("protocol", "TCP"), port.get("port"))
        if name and name in seen_names:
            causes.append(duplicate(f"{path}.name", name))
        if key in seen_ports:
            causes.append(duplicate(path, {"port": key[1], "protocol": key[0]}))
        node_key = (key[0], port.get("nodePort"))
        if node_key[1] and node_key in seen_node_ports:
            causes.append(duplicate(f"{path}.nodePort", node_key[1]))
        seen_names.add(name), seen_ports.add(key), seen_node_ports.add(node_key)
    return causes


def _port(path: str, port: dict, kind: str, many: bool) -> list[Cause]:
    causes: list[Cause] = []
    name = port.get("name") or ""
    if many and not name:
        causes.append(required(f"{path}.name"))
    causes += [invalid(f"{path}.name", name, e) for e in (names.label_errors(name) if name else [])]
    causes += _port_number(f"{path}.port", port.get("port"))
    protocol = port.get("protocol", "TCP")
    if protocol not in PROTOCOLS:
        causes.append(unsupported(f"{path}.protocol", protocol, PROTOCOLS))
    target = port.get("targetPort")
    if isinstance(target, str) and target:
        causes += [invalid(f"{path}.targetPort", target, e) for e in names.port_name_errors(target)]
    elif target:
        causes += _port_number(f"{path}.targetPort", target)
    if port.get("nodePort") and kind not in NEEDS_NODE_PORTS:
        causes.append(forbidden(f"{path}.nodePort", f"may not be used when `type` is '{kind}'"))
    return causes


def _port_number(path: str, value) -> list[Cause]:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 65535:
        return [invalid(path, value, "must be between 1 and 65535, inclusive")]
    return []


def _affinity(spec: dict) -> list[Cause]:
    affinity, config = spec.get("sessionAffinity", "None"), spec.get("sessionAffinityConfig")
    if affinity not in AFFINITIES:
        return [unsupported("spec.sessionAffinity", affinity, AFFINITIES)]
    if affinity == "None":
        return [forbidden("spec.sessionAffinityConfig", "must not be set when session affinity is None")] \
            if config else []
    timeout = ((config or {}).get("clientIP") or {}).get("timeoutSeconds")
    if timeout is not None and not (isinstance(timeout, int) and 0 < timeout <= MAX_AFFINITY_SECONDS):
        return [invalid("spec.sessionAffinityConfig.clientIP.timeoutSeconds", timeout,
                        f"must be greater than 0 and less than {MAX_AFFINITY_SECONDS}")]
    return []


def _traffic(spec: dict, kind: str) -> list[Cause]:
    causes = []
    external, internal = spec.get("externalTrafficPolicy"), spec.get("internalTrafficPolicy")
    if external and kind not in NEEDS_NODE_PORTS and not spec.get("externalIPs"):
        causes.append(invalid("spec.externalTrafficPolicy", external, "may only be set for externally-accessible "
                                                                       "services"))
    elif external and external not in TRAFFIC_POLICIES:
        causes.append(unsupported("spec.externalTrafficPolicy", external, TRAFFIC_POLICIES))
    if internal and internal not in TRAFFIC_POLICIES:
        causes.append(unsupported("spec.internalTrafficPolicy", internal, TRAFFIC_POLICIES))
    return causes


def _selector(selector) -> list[Cause]:
    causes = []
    for key, value in (selector or {}).items():
        causes += [invalid("spec.selector", key, e) for e in names.qualified_name_errors(key)]
        causes += [invalid(f"spec.selector[{key}]", value, e) for e in names.label_value_errors(str(value))]
    return causes


def _external_name(spec: dict) -> list[Cause]:
    name = (spec.get("externalName") or "").removesuffix(".")
    if not name:
        return [required("spec.externalName")]
    return [invalid("spec.externalName", name, e) for e in names.subdomain_errors(name)]


def service_update(old: dict, new: dict) -> list[Cause]:
    """A Service's virtual IP may not change once set (switching to or from ExternalName frees or takes
    one, so that is not a change)."""
    old_spec, new_spec = old.get("spec") or {}, new.get("spec") or {}
    if "ExternalName" in (old_spec.get("type"), new_spec.get("type")):
        return []
    before, after = old_spec.get("clusterIPs") or [], new_spec.get("clusterIPs") or []
    if before and not after:
        return [Cause("spec.clusterIPs[0]", "Required value: primary clusterIP can not be unset",
                      "FieldValueRequired")]
    if before and after and before[0] != after[0]:
        return [invalid("spec.clusterIPs[0]", after, "may not change once set")]
    return []


ADDRESS_TYPES = ("FQDN", "IPv4", "IPv6")
MAX_ENDPOINTS, MAX_PORTS, MAX_ADDRESSES = 1000, 100, 100


def validate_endpoint_slice(obj: dict) -> list[Cause]:
    """discovery/v1 validation; unlike Kubernetes, loopback addresses are allowed: in kubus's host-network
    mode every pod has a 127.x address (docs/networking.md says so)."""
    address_type = obj.get("addressType")
    if not address_type:
        return [required("addressType")]
    if address_type not in ADDRESS_TYPES:
        return [unsupported("addressType", address_type, ADDRESS_TYPES)]
    endpoints, ports = obj.get("endpoints") or [], obj.get("ports") or []
    causes = []
    if len(endpoints) > MAX_ENDPOINTS:
        causes.append(Cause("endpoints", f"Too many: {len(endpoints)}: must have at most {MAX_ENDPOINTS} items",
                            "FieldValueTooMany"))
    if len(ports) > MAX_PORTS:
        causes.append(Cause("ports", f"Too many: {len(ports)}: must have at most {MAX_PORTS} items",
                            "FieldValueTooMany"))
    for i, endpoint in enumerate(endpoints[:MAX_ENDPOINTS]):
        causes += _endpoint(f"endpoints[{i}]", endpoint, address_type)
    for i, port in enumerate(ports[:MAX_PORTS]):
        if port.get("protocol", "TCP") not in PROTOCOLS:
            causes.append(unsupported(f"ports[{i}].protocol", port.get("protocol"), PROTOCOLS))
        if port.get("name"):
            causes += [invalid(f"ports[{i}].name", port["name"], e) for e in names.label_errors(port["name"])]
    return causes


def _endpoint(path: str, endpoint: dict, address_type: str) -> list[Cause]:
    addresses = endpoint.get("addresses") or []
    if not 1 <= len(addresses) <= MAX_ADDRESSES:
        return [Cause(f"{path}.addresses", f"Required value: must contain at least 1 address and at most "
                                           f"{MAX_ADDRESSES}", "FieldValueRequired")]
    causes = []
    for j, address in enumerate(addresses):
        causes += _address(f"{path}.addresses[{j}]", address, address_type)
    if endpoint.get("hostname"):
        causes += [invalid(f"{path}.hostname", endpoint["hostname"], e)
                   for e in names.label_errors(endpoint["hostname"])]
    return causes


def _address(path: str, address: str, address_type: str) -> list[Cause]:
    if address_type == "FQDN":
        return [invalid(path, address, e) for e in names.subdomain_errors(address)]
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return [invalid(path, address, "must be a valid IP address")]
    if f"IPv{parsed.version}" != address_type:
        return [invalid(path, address, f"must be an {address_type} address")]
    if parsed.is_unspecified:
        return [invalid(path, address, "may not be unspecified (0.0.0.0)")]
    if parsed.is_link_local:
        return [invalid(path, address, "may not be in the link-local range (169.254.0.0/16, fe80::/10)")]
    return []


def endpoint_slice_update(old: dict, new: dict) -> list[Cause]:
    if old.get("addressType") != new.get("addressType"):
        return [invalid("addressType", new.get("addressType"), "field is immutable")]
    return []
