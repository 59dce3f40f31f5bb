"""Whether a toleration tolerates a taint (k8s.io/api core/v1 Toleration.ToleratesTaint)."""
from __future__ import annotations


def tolerates(toleration: dict, taint: dict) -> bool:
    """Kubernetes' Toleration.ToleratesTaint."""
    effect = toleration.get("effect") or ""
    if effect and effect != taint.get("effect"):
        return False
    key = toleration.get("key") or ""
    if key and key != taint.get("key"):
        return False
    operator = toleration.get("operator") or "Equal"
    if operator == "Exists":
        return True
    if operator == "Equal":
        return (toleration.get("value") or "") == (taint.get("value") or "")
    if operator in ("Gt", "Lt"):
        try:
            taint_value, value = int(taint.get("value") or ""), int(toleration.get("value") or "")
        except ValueError:
            return False
        return taint_value > value if operator == "Gt" else taint_value < value
    return False
