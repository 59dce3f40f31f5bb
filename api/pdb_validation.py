"""A PodDisruptionBudget's validation (pkg/apis/policy/validation: ValidatePodDisruptionBudgetSpec) with
Kubernetes' messages: minAvailable and maxUnavailable exclusive, each a non-negative int or a percent
of at most 100%, the selector, the unhealthy-pod eviction policy; the status's counts non-negative."""
from __future__ import annotations

import json
import re

from api import selectors
from api.pdb import EVICTION_POLICIES
from api.status import Cause

PERCENT = re.compile(r"^[0-9]+%$")
PERCENT_MESSAGE = ("a valid percent string must be a numeric string followed by an ending '%' "
                   "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")
COUNTS = ("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods")


def _invalid(path: str, value, message: str) -> Cause:
    shown = json.dumps(value, separators=(",", ":")) if not isinstance(value, int) else str(value)
    return Cause(path, f"Invalid value: {shown}: {message}")


def int_or_percent(path: str, value) -> list[Cause]:
    """ValidatePositiveIntOrPercent and IsNotMoreThan100Percent."""
    if isinstance(value, str):
        if not PERCENT.match(value):
            return [_invalid(path, value, PERCENT_MESSAGE)]
        return [_invalid(path, value, "must not be greater than 100%")] if int(value[:-1]) > 100 else []
    return [_invalid(path, value, "must be greater than or equal to 0")] if value < 0 else []


def _selector(spec: dict) -> list[Cause]:
    try:
        selectors.from_label_selector(spec.get("selector"))
    except ValueError as exc:
        return [_invalid("spec.selector", spec.get("selector"), str(exc))]
    return []


def validate_pdb(pdb: dict) -> list[Cause]:
    spec = pdb.get("spec") or {}
    causes = []
    if spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        causes.append(_invalid("spec", spec, "minAvailable and maxUnavailable cannot be both set"))
    for key in ("minAvailable", "maxUnavailable"):
        if spec.get(key) is not None:
            causes += int_or_percent(f"spec.{key}", spec[key])
    policy = spec.get("unhealthyPodEvictionPolicy")
    if policy is not None and policy not in EVICTION_POLICIES:
        supported = ", ".join(f'"{p}"' for p in sorted(EVICTION_POLICIES))
        causes.append(Cause("spec.unhealthyPodEvictionPolicy",
                            f'Unsupported value: "{policy}": supported values: {supported}', "FieldValueNotSupported"))
    return causes + _selector(spec)


def pdb_status_update(old: dict, new: dict) -> list[Cause]:
    """ValidatePodDisruptionBudgetStatusUpdate: the counts are never negative."""
    status = new.get("status") or {}
    return [_invalid(f"status.{key}", status[key], "must be greater than or equal to 0")
            for key in COUNTS if isinstance(status.get(key), int) and status[key] < 0]
