"""kubectl's columns of a PodDisruptionBudget (`printPodDisruptionBudget`): NAME MIN AVAILABLE
MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE; an unset bound reads N/A."""
from __future__ import annotations

from api.printers.workloads import Row, age


def _bound(spec: dict, key: str) -> str:
    value = spec.get(key)
    return "N/A" if value is None else str(value)


def _pdb(pdb: dict, wide: bool) -> list[str]:
    spec, status = pdb.get("spec") or {}, pdb.get("status") or {}
    return [pdb["metadata"]["name"], _bound(spec, "minAvailable"), _bound(spec, "maxUnavailable"),
            str(status.get("disruptionsAllowed", 0)), age(pdb["metadata"].get("creationTimestamp"))]


COLUMNS: dict[str, tuple[list[str], list[str], Row]] = {
    "PodDisruptionBudget": (["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"], [], _pdb),
}
