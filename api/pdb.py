"""PodDisruptionBudget (policy/v1): the model, the facts the disruption controller and the eviction
handler share — which budgets select a pod, whether a pod counts as healthy, an int-or-percent
resolved against a count — and the words both write. Validation is `api/pdb_validation.py`; the
controller `actors/controllers/disruption.py`; eviction `actors/apiserver/eviction.py`."""
from __future__ import annotations

import math

from api import selectors
from api.meta import Condition, K8sModel, LabelSelector, Resource

DISRUPTION_ALLOWED = "DisruptionAllowed"
SUFFICIENT, INSUFFICIENT, SYNC_FAILED = "SufficientPods", "InsufficientPods", "SyncFailed"
IF_HEALTHY_BUDGET, ALWAYS_ALLOW = "IfHealthyBudget", "AlwaysAllow"
EVICTION_POLICIES = (IF_HEALTHY_BUDGET, ALWAYS_ALLOW)
DISRUPTION_TARGET = "DisruptionTarget"  # the pod condition an eviction sets
MAX_DISRUPTED_PODS = 2000


class PodDisruptionBudgetSpec(K8sModel):
    minAvailable: int | str | None = None
    maxUnavailable: int | str | None = None
    selector: LabelSelector | None = None
    unhealthyPodEvictionPolicy: str | None = None  # checked by validation, in its words


class PodDisruptionBudgetStatus(K8sModel):
    observedGeneration: int | None = None
    disruptedPods: dict[str, str] | None = None
    disruptionsAllowed: int = 0
    currentHealthy: int = 0
    desiredHealthy: int = 0
    expectedPods: int = 0
    conditions: list[Condition] | None = None


class PodDisruptionBudget(Resource):
    API_VERSION = "policy/v1"
    KIND = "PodDisruptionBudget"
    spec: PodDisruptionBudgetSpec = PodDisruptionBudgetSpec()
    status: PodDisruptionBudgetStatus | None = None


def defaults(obj: dict) -> None:
    """policy/v1 defaults nothing but an empty spec; the status's counts are zeros (non-omitempty)."""
    obj.setdefault("spec", {})
    status = obj.setdefault("status", {})
    for key in ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"):
        status.setdefault(key, 0)


def selects(pdb: dict, pod: dict) -> bool:
    """getPdbsForPod: a nil selector selects nothing, `{}` every pod of the namespace."""
    meta = pod.get("metadata") or {}
    if (pdb.get("metadata") or {}).get("namespace") != meta.get("namespace"):
        return False
    return selectors.from_label_selector((pdb.get("spec") or {}).get("selector")).matches(meta.get("labels") or {})


def is_healthy(pod: dict) -> bool:
    """Ready (podutil.IsPodReady) and not being deleted."""
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        return False
    conditions = (pod.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


def scaled(value: int | str, total: int, round_up: bool = True) -> int:
    """intstr.GetScaledValueFromIntOrPercent: an int as is, `N%` of total (rounded up by default)."""
    if isinstance(value, int):
        return value
    share = int(value.rstrip("%")) * total / 100
    return math.ceil(share) if round_up else math.floor(share)


def is_percent(value) -> bool:
    return isinstance(value, str) and value.endswith("%")
