"""What the scheduler tells the world: Events, the PodScheduled condition, decision annotations."""
from __future__ import annotations

import json

from actors.scheduler.framework import Decision, Framework
from api.annotations import FILTER_RESULT, SCORE_RESULT, SELECTED_NODE
from api.times import now as _now



def unschedulable_status(pod: dict, message: str, reason: str = "Unschedulable") -> dict:
    """The pod's conditions with PodScheduled=False (a merge patch replaces the whole list)."""
    conditions = [c for c in (pod.get("status") or {}).get("conditions") or [] if c.get("type") != "PodScheduled"]
    conditions.append({"type": "PodScheduled", "status": "False", "reason": reason, "message": message,
                       "lastProbeTime": None, "lastTransitionTime": _now()})
    return {"status": {"conditions": conditions}}


def disruption_status(pod: dict, component: str) -> dict:
    """DisruptionTarget=True, reason PreemptionByScheduler, added to the victim's conditions."""
    conditions = [c for c in (pod.get("status") or {}).get("conditions") or [] if c.get("type") != "DisruptionTarget"]
    conditions.append({"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
                       "message": f"{component}: preempting to accommodate a higher priority pod",
                       "lastTransitionTime": _now()})
    return {"status": {"conditions": conditions}}


def decision_annotations(framework: Framework, decision: Decision, names: list[str]) -> dict[str, str]:
    """kube-scheduler-simulator's annotations: every node's filter verdicts and scores."""
    ran = [p.name for p in framework.filters]
    filters = {}
    for i, node in enumerate(names):
        failure = decision.diagnosis.failures.get(i)
        if failure is None:
            filters[node] = {p: "passed" for p in ran}
        else:
            _code, reasons, plugin = failure
            upto = ran[:ran.index(plugin)] if plugin in ran else []
            filters[node] = {**{p: "passed" for p in upto}, plugin: "; ".join(reasons)}
    return {FILTER_RESULT: json.dumps(filters, sort_keys=True), SCORE_RESULT: json.dumps(decision.scores, sort_keys=True),
            SELECTED_NODE: decision.node or ""}
