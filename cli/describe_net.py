"""`kubus describe service`: kubectl's layout, with the endpoints the Service's slices hold."""
from __future__ import annotations

from runtime.client import Client


def _row(label: str, value) -> str:
    return f"{label + ':':<26}{value}"


def service_lines(client: Client, svc: dict) -> list[str]:
    spec, meta = svc.get("spec") or {}, svc["metadata"]
    selector = ",".join(f"{k}={v}" for k, v in sorted((spec.get("selector") or {}).items())) or "<none>"
    lines = [_row("Selector", selector), _row("Type", spec.get("type", "ClusterIP"))]
    if spec.get("type") == "ExternalName":
        return lines + [_row("External Name", spec.get("externalName")),
                        _row("Session Affinity", spec.get("sessionAffinity", "None"))]
    lines += [_row("IP Family Policy", spec.get("ipFamilyPolicy", "SingleStack")),
              _row("IP Families", ",".join(spec.get("ipFamilies") or ["IPv4"])),
              _row("IP", spec.get("clusterIP", "<none>")), _row("IPs", ",".join(spec.get("clusterIPs") or []))]
    slices = client.list("EndpointSlice", meta.get("namespace"),
                         label_selector=f"kubernetes.io/service-name={meta['name']}").items
    for port in spec.get("ports") or []:
        name = port.get("name") or "<unset>"
        protocol = port.get("protocol", "TCP")
        lines += [_row("Port", f"{name}  {port['port']}/{protocol}"),
                  _row("TargetPort", f"{port.get('targetPort', port['port'])}/{protocol}")]
        if port.get("nodePort"):
            lines.append(_row("NodePort", f"{name}  {port['nodePort']}/{protocol}"))
        lines.append(_row("Endpoints", endpoints_text(slices, port.get("name") or "", protocol)))
    return lines + [_row("Session Affinity", spec.get("sessionAffinity", "None"))]


def endpoints_text(slices: list[dict], port_name: str, protocol: str) -> str:
    """Ready addresses with the slice's port for this Service port, as kubectl formats them."""
    found = []
    for s in slices:
        number = next((p.get("port") for p in s.get("ports") or []
                       if (p.get("name") or "") == port_name and p.get("protocol", "TCP") == protocol), None)
        for e in s.get("endpoints") or []:
            if number and (e.get("conditions") or {}).get("ready") is not False:
                found += [f"{a}:{number}" for a in e.get("addresses") or []]
    if not found:
        return "<none>"
    return ",".join(found[:3]) + (f" + {len(found) - 3} more..." if len(found) > 3 else "")
