"""ObjectMeta and the base every resource type stands on."""
from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field


class K8sModel(BaseModel):
    """Kubernetes-shaped model: camelCase fields, unknown fields kept (Kubernetes has more than we model)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, validate_assignment=False)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True, by_alias=True)


class OwnerReference(K8sModel):
    apiVersion: str
    kind: str
    name: str
    uid: str
    controller: bool | None = None
    blockOwnerDeletion: bool | None = None


class ObjectMeta(K8sModel):
    name: str | None = None
    generateName: str | None = None
    namespace: str | None = None
    uid: str | None = None
    resourceVersion: str | None = None
    generation: int | None = None
    creationTimestamp: str | None = None
    deletionTimestamp: str | None = None
    deletionGracePeriodSeconds: int | None = None
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None
    ownerReferences: list[OwnerReference] | None = None
    finalizers: list[str] | None = None


class Condition(K8sModel):
    type: str
    status: str
    reason: str | None = None
    message: str | None = None
    lastTransitionTime: str | None = None
    lastProbeTime: str | None = None
    lastHeartbeatTime: str | None = None
    lastUpdateTime: str | None = None
    observedGeneration: int | None = None


class Resource(K8sModel):
    """A top-level object: apiVersion, kind, metadata."""

    API_VERSION: ClassVar[str] = "v1"
    KIND: ClassVar[str] = ""

    apiVersion: str | None = None
    kind: str | None = None
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)


class LabelSelectorRequirement(K8sModel):
    key: str
    operator: str
    values: list[str] | None = None


class LabelSelector(K8sModel):
    matchLabels: dict[str, str] | None = None
    matchExpressions: list[LabelSelectorRequirement] | None = None
