"""How a Service's endpoints are packed into EndpointSlices (Kubernetes' reconcileByPortMapping, pure
logic): existing slices keep the endpoints still wanted and take their new versions, slices being
updated are filled first, the rest go into new slices of at most `max_per_slice`; a Service with no
endpoints keeps one placeholder slice; a slice that would be created instead takes the place of one
that would be deleted. Slices are never repacked just because they are sparse."""
from __future__ import annotations

from dataclasses import dataclass, field

from api.service import HEADLESS, HEADLESS_LABEL, MANAGED_BY_LABEL, SERVICE_NAME_LABEL

MANAGED_BY = "endpointslice-controller.k8s.io"
RESERVED = (SERVICE_NAME_LABEL, MANAGED_BY_LABEL, HEADLESS_LABEL)


@dataclass
class Plan:
    create: list[dict] = field(default_factory=list)
    update: list[dict] = field(default_factory=list)
    delete: list[dict] = field(default_factory=list)

    def empty(self) -> bool:
        return not (self.create or self.update or self.delete)


def identity(endpoint: dict) -> tuple:
    """An endpoint is the same endpoint while its addresses and pod are (endpointset.go's hash)."""
    ref = endpoint.get("targetRef") or {}
    return tuple(sorted(endpoint.get("addresses") or [])), endpoint.get("hostname"), ref.get("namespace"), \
        ref.get("name")


def labels_for(service: dict) -> dict[str, str]:
    labels = {k: v for k, v in (service["metadata"].get("labels") or {}).items() if k not in RESERVED}
    labels[SERVICE_NAME_LABEL] = service["metadata"]["name"]
    labels[MANAGED_BY_LABEL] = MANAGED_BY
    if (service.get("spec") or {}).get("clusterIP") in (HEADLESS, "", None):
        labels[HEADLESS_LABEL] = ""
    return labels


def new_slice(service: dict, ports: list[dict], endpoints: list[dict]) -> dict:
    meta = service["metadata"]
    owner = {"apiVersion": "v1", "kind": "Service", "name": meta["name"], "uid": meta["uid"], "controller": True,
             "blockOwnerDeletion": True}
    return {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
            "metadata": {"generateName": f"{meta['name']}-", "namespace": meta.get("namespace"),
                         "labels": labels_for(service), "ownerReferences": [owner]},
            "addressType": "IPv4", "ports": ports, "endpoints": endpoints}


def _port_key(ports: list[dict] | None) -> tuple:
    return tuple(sorted((p.get("name") or "", p.get("protocol", "TCP"), p.get("port")) for p in ports or []))


def plan(service: dict, desired: dict[tuple, tuple[list[dict], list[dict]]], existing: list[dict],
         max_per_slice: int = 100) -> Plan:
    """`desired`: port key -> (slice ports, endpoints); `existing`: this controller's slices of the Service."""
    out = Plan()
    labels = labels_for(service)
    groups: dict[tuple, list[dict]] = {}
    for s in existing:
        groups.setdefault(_port_key(s.get("ports")), []).append(s)
    for ports, endpoints in desired.values():
        _pack(service, ports, endpoints, groups.pop(_port_key(ports), []), labels, max_per_slice, out)
    for stale in groups.values():
        out.delete += stale
    if not desired:
        _placeholder(service, existing, out)
    _reuse_deleted(out)
    return out


def _pack(service: dict, ports: list[dict], endpoints: list[dict], slices: list[dict], labels: dict,
          max_per_slice: int, out: Plan) -> None:
    wanted = {identity(e): e for e in endpoints}
    remaining = dict(wanted)
    updating, unchanged = [], []
    for s in slices:
        kept = [wanted[identity(e)] for e in s.get("endpoints") or [] if identity(e) in remaining]
        for e in kept:
            remaining.pop(identity(e), None)
        if not kept:
            out.delete.append(s)
        elif kept != (s.get("endpoints") or []) or s["metadata"].get("labels") != labels:
            updating.append({**s, "endpoints": kept, "metadata": {**s["metadata"], "labels": labels}})
        else:
            unchanged.append(s)
    rest = list(remaining.values())
    for s in sorted(updating, key=lambda s: -len(s["endpoints"])):
        room = max_per_slice - len(s["endpoints"])
        s["endpoints"], rest = s["endpoints"] + rest[:max(room, 0)], rest[max(room, 0):]
    out.update += updating
    if rest and len(rest) < max_per_slice:
        fit = [s for s in unchanged if len(s["endpoints"]) + len(rest) <= max_per_slice]
        if fit:
            best = max(fit, key=lambda s: len(s["endpoints"]))
            out.update.append({**best, "endpoints": best["endpoints"] + rest})
            rest = []
    for i in range(0, len(rest), max_per_slice):
        out.create.append(new_slice(service, ports, rest[i:i + max_per_slice]))


def _placeholder(service: dict, existing: list[dict], out: Plan) -> None:
    """No endpoints: one slice with none and no ports stays (an identical one is not made again)."""
    kept = next((s for s in existing if not s.get("endpoints") and not s.get("ports")), None)
    if kept is not None:
        out.delete = [s for s in out.delete if s is not kept]
        if kept["metadata"].get("labels") != labels_for(service):
            out.update.append({**kept, "metadata": {**kept["metadata"], "labels": labels_for(service)}})
        return
    out.create.append(new_slice(service, [], []))


def _reuse_deleted(out: Plan) -> None:
    """A create becomes an update of a slice about to be deleted: fewer objects come and go."""
    while out.create and out.delete:
        made, gone = out.create.pop(), out.delete.pop()
        out.update.append({**gone, "ports": made["ports"], "endpoints": made["endpoints"],
                           "metadata": {**gone["metadata"], "labels": made["metadata"]["labels"]}})
