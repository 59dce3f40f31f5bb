"""The kinds admission reads: ServiceAccount, LimitRange, ResourceQuota (core/v1) and
PriorityClass (scheduling.k8s.io/v1), with the system PriorityClasses Kubernetes keeps beside the type
(`pkg/apis/scheduling`: the reserved values, the built-in classes, IsKnownSystemPriorityClass).
Their validation is `api/policy_validation.py`."""
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


HIGHEST_USER_DEFINABLE = 1_000_000_000
SYSTEM_CRITICAL = 2_000_000_000
SYSTEM_PREFIX = "system-"
NO_DEFAULT_PRIORITY = 0
DEFAULT_PREEMPTION = "PreemptLowerPriority"


def _builtin(name: str, value: int, description: str) -> dict:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value, "globalDefault": False, "preemptionPolicy": DEFAULT_PREEMPTION,
            "description": description}


BUILTIN_CLASSES = (
    _builtin("system-cluster-critical", SYSTEM_CRITICAL, "Used for system critical pods that must run in the "
             "cluster, but can be moved to another node if necessary."),
    _builtin("system-node-critical", SYSTEM_CRITICAL + 1000, "Used for system critical pods that must not be "
             "moved from their current node."),
)


def system_class_error(name: str, value: int, global_default: bool) -> str | None:
    """IsKnownSystemPriorityClass: why a `system-` name is not one of the built-ins as they are."""
    builtin = next((b for b in BUILTIN_CLASSES if b["metadata"]["name"] == name), None)
    if builtin is None:
        return f"{name} is not a known system priority class"
    if builtin["value"] != value:
        return f"value of {name} PriorityClass must be {builtin['value']}"
    if builtin["globalDefault"] != global_default:
        return f"globalDefault of {name} PriorityClass must be {str(builtin['globalDefault']).lower()}"
    return None
