"""kubectl's columns for Services, Endpoints, EndpointSlices, Ingresses and IngressClasses
(`pkg/printers/internalversion/printers.go`)."""
from __future__ import annotations

from api.printers.workloads import age

MORE = 3  # kubectl lists this many endpoints, then "+ N more..."


def _listed(items: list[str], empty: str) -> str:
    if not items:
        return empty
    shown = ",".join(items[:MORE])
    return shown + (f" + {len(items) - MORE} more..." if len(items) > MORE else "")


def _lb_ips(obj: dict) -> list[str]:
    return [i.get("ip") or i.get("hostname") or "" for i in
            ((obj.get("status") or {}).get("loadBalancer") or {}).get("ingress") or []]


def _external_ip(spec: dict, svc: dict) -> str:
    kind, external = spec.get("type", "ClusterIP"), spec.get("externalIPs") or []
    if kind == "ExternalName":
        return spec.get("externalName") or "<none>"
    if kind == "LoadBalancer":
        return ",".join(_lb_ips(svc) + external) or "<pending>"
    return ",".join(external) or "<none>"


def _service_ports(spec: dict) -> str:
    ports = [f"{p.get('port')}:{p['nodePort']}/{p.get('protocol', 'TCP')}" if p.get("nodePort")
             else f"{p.get('port')}/{p.get('protocol', 'TCP')}" for p in spec.get("ports") or []]
    return ",".join(ports) or "<none>"


def service(svc: dict, wide: bool) -> list[str]:
    spec = svc.get("spec") or {}
    cluster_ip = "<none>" if spec.get("type") == "ExternalName" else spec.get("clusterIP") or "<none>"
    cells = [svc["metadata"]["name"], spec.get("type", "ClusterIP"), cluster_ip, _external_ip(spec, svc),
             _service_ports(spec), age(svc["metadata"].get("creationTimestamp"))]
    if wide:
        selector = spec.get("selector")
        cells.append(",".join(f"{k}={v}" for k, v in sorted(selector.items())) if selector else "<none>")
    return cells


def endpoints(ep: dict, wide: bool) -> list[str]:
    pairs = [f"{a.get('ip')}:{p.get('port')}" if p else a.get("ip", "")
             for subset in ep.get("subsets") or []
             for a in subset.get("addresses") or []
             for p in (subset.get("ports") or [None])]
    return [ep["metadata"]["name"], _listed(pairs, "<none>"), age(ep["metadata"].get("creationTimestamp"))]


def endpoint_slice(es: dict, wide: bool) -> list[str]:
    ports = [str(p["port"]) if p.get("port") is not None else "<unset>" for p in es.get("ports") or []]
    addresses = [a for e in es.get("endpoints") or [] for a in e.get("addresses") or []]
    return [es["metadata"]["name"], es.get("addressType", ""), ",".join(ports) or "<unset>",
            _listed(addresses, "<unset>"), age(es["metadata"].get("creationTimestamp"))]


def ingress(ing: dict, wide: bool) -> list[str]:
    spec = ing.get("spec") or {}
    hosts = [r["host"] for r in spec.get("rules") or [] if r.get("host")]
    return [ing["metadata"]["name"], spec.get("ingressClassName") or "<none>", ",".join(hosts) or "*",
            ",".join(_lb_ips(ing)), "80, 443" if spec.get("tls") else "80",
            age(ing["metadata"].get("creationTimestamp"))]


def ingress_class(ic: dict, wide: bool) -> list[str]:
    spec = ic.get("spec") or {}
    params = spec.get("parameters")
    shown = f"{params.get('kind')}/{params.get('name')}" if params else "<none>"
    return [ic["metadata"]["name"], spec.get("controller", ""), shown, age(ic["metadata"].get("creationTimestamp"))]


COLUMNS = {
    "Service": (["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"], ["SELECTOR"], service),
    "Endpoints": (["NAME", "ENDPOINTS", "AGE"], [], endpoints),
    "EndpointSlice": (["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"], [], endpoint_slice),
    "Ingress": (["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"], [], ingress),
    "IngressClass": (["NAME", "CONTROLLER", "PARAMETERS", "AGE"], [], ingress_class),
}
