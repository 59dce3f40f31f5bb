"""Which pods back a Service and how (pure logic, shared by the EndpointSlice and Endpoints
controllers): Kubernetes' ShouldPodBeInEndpoints, podToEndpoint and the per-pod port lookup
(`pkg/controller/endpointslice`, `endpointslice/util`)."""
from __future__ import annotations

from dataclasses import dataclass

from api import selectors

Ports = tuple[tuple[str, str, int, str | None], ...]  # (name, protocol, port, appProtocol) per Service port
ZONE_LABEL = "topology.kubernetes.io/zone"
TERMINAL = ("Succeeded", "Failed")


@dataclass(frozen=True)
class PodEndpoint:
    address: str
    ready: bool
    serving: bool
    terminating: bool
    pod: dict
    hostname: str | None

    def as_slice_endpoint(self, zone: str | None) -> dict:
        meta = self.pod["metadata"]
        endpoint = {"addresses": [self.address],
                    "conditions": {"ready": self.ready, "serving": self.serving, "terminating": self.terminating},
                    "targetRef": {"kind": "Pod", "namespace": meta.get("namespace", ""), "name": meta["name"],
                                  "uid": meta["uid"]}}
        if self.hostname:
            endpoint["hostname"] = self.hostname
        if self.pod["spec"].get("nodeName"):
            endpoint["nodeName"] = self.pod["spec"]["nodeName"]
        if zone:
            endpoint["zone"] = zone
        return endpoint


def selected(service: dict) -> bool:
    """ExternalName and selector-less Services get no endpoints from the controllers."""
    spec = service.get("spec") or {}
    return spec.get("type") != "ExternalName" and spec.get("selector") is not None


def pods_of(service: dict, pods: list[dict]) -> list[dict]:
    chosen = selectors.from_label_selector({"matchLabels": (service.get("spec") or {}).get("selector") or {}})
    return [p for p in pods if chosen.matches(p["metadata"].get("labels"))]


def endpoint_of(service: dict, pod: dict) -> PodEndpoint | None:
    """None for a pod that is finished or has no address yet."""
    status = pod.get("status") or {}
    address = status.get("podIP") or next((i.get("ip") for i in status.get("podIPs") or [] if i.get("ip")), None)
    if status.get("phase") in TERMINAL or not address:
        return None
    serving = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [])
    terminating = bool(pod["metadata"].get("deletionTimestamp"))
    publish = bool((service.get("spec") or {}).get("publishNotReadyAddresses"))
    return PodEndpoint(address, publish or (serving and not terminating), serving, terminating, pod,
                       _hostname(service, pod))


def _hostname(service: dict, pod: dict) -> str | None:
    """Set only for a pod whose `subdomain` names this Service (ShouldSetHostname)."""
    spec = pod["spec"]
    same = pod["metadata"].get("namespace") == service["metadata"].get("namespace")
    return spec["hostname"] if spec.get("hostname") and spec.get("subdomain") == service["metadata"]["name"] \
        and same else None


def ports_of(service: dict, pod: dict) -> Ports:
    """The Service's ports as this pod serves them: a named targetPort is looked up among the pod's
    container ports (then its sidecars') of the same protocol; a port the pod does not have is left out."""
    out = []
    for port in (service.get("spec") or {}).get("ports") or []:
        protocol = port.get("protocol", "TCP")
        target = port.get("targetPort", port.get("port"))
        number = _named_port(pod, target, protocol) if isinstance(target, str) else target
        if number:
            out.append((port.get("name") or "", protocol, number, port.get("appProtocol")))
    return tuple(out)


def _named_port(pod: dict, name: str, protocol: str) -> int | None:
    spec = pod["spec"]
    sidecars = [c for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"]
    for container in (spec.get("containers") or []) + sidecars:
        for port in container.get("ports") or []:
            if port.get("name") == name and port.get("protocol", "TCP") == protocol:
                return port.get("containerPort")
    return None


def slice_ports(ports: Ports) -> list[dict]:
    out = []
    for name, protocol, number, app in ports:
        port = {"name": name, "protocol": protocol, "port": number}
        if app:
            port["appProtocol"] = app
        out.append(port)
    return out


def by_ports(service: dict, pods: list[dict]) -> dict[Ports, list[PodEndpoint]]:
    """The Service's endpoints grouped by the ports they resolve to, each group in pod-name order."""
    groups: dict[Ports, list[PodEndpoint]] = {}
    for pod in sorted(pods_of(service, pods), key=lambda p: p["metadata"]["name"]):
        endpoint = endpoint_of(service, pod)
        if endpoint is not None:
            groups.setdefault(ports_of(service, pod), []).append(endpoint)
    return groups
