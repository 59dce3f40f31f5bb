"""Node (core/v1)."""
from __future__ import annotations

from typing import Literal

from api.meta import Condition, K8sModel, Resource
from api.quantity import Quantity


class Taint(K8sModel):
    key: str
    value: str | None = None
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]
    timeAdded: str | None = None


class NodeSpec(K8sModel):
    unschedulable: bool | None = None
    taints: list[Taint] | None = None
    podCIDR: str | None = None
    providerID: str | None = None


class NodeStatus(K8sModel):
    capacity: dict[str, Quantity] | None = None
    allocatable: dict[str, Quantity] | None = None
    conditions: list[Condition] | None = None
    addresses: list[dict] | None = None
    nodeInfo: dict | None = None
    images: list[dict] | None = None


class Node(Resource):
    KIND = "Node"
    spec: NodeSpec | None = None
    status: NodeStatus | None = None
