"""`kubus describe` of a PodDisruptionBudget: the lines kubectl's PodDisruptionBudgetDescriber prints
between the metadata and the events (its bound, its selector, and the disruption controller's status)."""
from __future__ import annotations

from api.printers.workloads import selector_text


def budget_lines(pdb: dict) -> list[str]:
    spec, status = pdb.get("spec") or {}, pdb.get("status") or {}
    if spec.get("minAvailable") is not None:
        lines = [f"Min available:  {spec['minAvailable']}"]
    elif spec.get("maxUnavailable") is not None:
        lines = [f"Max unavailable:  {spec['maxUnavailable']}"]
    else:
        lines = []
    selector = selector_text(spec["selector"]) if spec.get("selector") is not None else "<unset>"
    return lines + [f"Selector:     {selector}", "Status:",
                    f"    Allowed disruptions:  {status.get('disruptionsAllowed', 0)}",
                    f"    Current:              {status.get('currentHealthy', 0)}",
                    f"    Desired:              {status.get('desiredHealthy', 0)}",
                    f"    Total:                {status.get('expectedPods', 0)}"]
