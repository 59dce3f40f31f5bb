"""The kinds admission reads: ServiceAccount, LimitRange, ResourceQuota (core/v1) and
PriorityClass (scheduling.k8s.io/v1)."""
from __future__ import annotations

from api.meta import K8sModel, Resource


class LocalObjectReference(K8sModel):
    name: str | None = None


class ServiceAccount(Resource):
    KIND = "ServiceAccount"
    automountServiceAccountToken: bool | None = None
    secrets: list[dict] | None = None
    imagePullSecrets: list[LocalObjectReference] | None = None


class PriorityClass(Resource):
    API_VERSION = "scheduling.k8s.io/v1"
    KIND = "PriorityClass"
    value: int
    globalDefault: bool | None = None
    preemptionPolicy: str | None = None
    description: str | None = None


class LimitRangeItem(K8sModel):
    type: str
    max: dict[str, str | int | float] | None = None
    min: dict[str, str | int | float] | None = None
    default: dict[str, str | int | float] | None = None
    defaultRequest: dict[str, str | int | float] | None = None
    maxLimitRequestRatio: dict[str, str | int | float] | None = None


class LimitRangeSpec(K8sModel):
    limits: list[LimitRangeItem]


class LimitRange(Resource):
    KIND = "LimitRange"
    spec: LimitRangeSpec | None = None


class ResourceQuotaSpec(K8sModel):
    hard: dict[str, str | int | float] | None = None
    scopes: list[str] | None = None
    scopeSelector: dict | None = None


class ResourceQuotaStatus(K8sModel):
    hard: dict[str, str] | None = None
    used: dict[str, str] | None = None


class ResourceQuota(Resource):
    KIND = "ResourceQuota"
    spec: ResourceQuotaSpec | None = None
    status: ResourceQuotaStatus | None = None


def validate_priority_class(obj: dict) -> list:
    return []


def validate_limit_range(obj: dict) -> list:
    return []


def validate_resource_quota(obj: dict) -> list:
    return []
