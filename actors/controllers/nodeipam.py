"""The node IPAM controller (kube-controller-manager's `--allocate-node-cidrs` range allocator): every
Node gets `spec.podCIDR(s)`, a /24 (setting `node_cidr_mask_size`) of the cluster CIDR no other node
holds; its kubelet hands its pods addresses from it. A CIDR once set never changes; a deleted node's
range is free again. With the cluster CIDR used up, the node gets a `CIDRNotAvailable` Event."""
from __future__ import annotations

import ipaddress
from typing import Any

from actors.controllers.base import Controller
from api.status import StatusError
from runtime.cache import Delta


class NodeIpamController(Controller):
    name = "controller.nodeipam"
    kinds = ("node",)

    def __init__(self, settings, **kw: Any):
        super().__init__(settings, **kw)
        self.ranges = list(ipaddress.IPv4Network(settings.cluster_cidr).subnets(new_prefix=settings.node_cidr_mask_size))
        # node -> the CIDR a write gives it, until the cache shows it: the store's answer may come before
        # its event, and a range freed on the answer alone went to the next node too
        self.pending: dict[str, str] = {}

    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        name = delta.object["metadata"]["name"]
        has = (delta.object.get("spec") or {}).get("podCIDR")
        if delta.type == "DELETED" or has:
            self.pending.pop(name, None)
            return []
        return [name]

    def reconcile(self, key: str) -> None:
        node = self.get("Node", "", key)
        if node is None or (node.get("spec") or {}).get("podCIDR") or key in self.pending:
            return
        cidr = self._free()
        if cidr is None:
            self.event(node, "CIDRNotAvailable", f"Node {key} status is now: CIDRNotAvailable", "Normal")
            return
        self.pending[key] = cidr
        self.log.info("nodeipam.assign", node=key, cidr=cidr)
        spec = {**(node.get("spec") or {}), "podCIDR": cidr, "podCIDRs": [cidr]}
        self.write({"verb": "update", "kind": "Node", "name": key, "object": {**node, "spec": spec}},
                   lambda result: self._written(key, result))

    def _free(self) -> str | None:
        taken = {(n.get("spec") or {}).get("podCIDR") for n in self.objects.get("Node", {}).values()}
        taken |= set(self.pending.values())
        return next((str(r) for r in self.ranges if str(r) not in taken), None)

    def _written(self, key: str, result: dict | StatusError) -> None:
        if not isinstance(result, StatusError):
            return  # held in `pending` until the node's event shows the range
        self.pending.pop(key, None)
        if result.reason != "NotFound":
            self.log.info("nodeipam.assign_failed", node=key, reason=result.reason, message=result.message[:200])
            self.retry(key)
