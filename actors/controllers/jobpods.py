"""What the Job controller reads of one pod: finished, succeeded, tracked by the finalizer, its
completion index and index failure count, when it finished, and the podFailurePolicy rule it matches."""
from __future__ import annotations

from api import batch
from api.times import seconds


def finished(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed") or \
        bool(pod["metadata"].get("deletionTimestamp"))


def succeeded(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") == "Succeeded"


def tracked(pod: dict) -> bool:
    return batch.TRACKING_FINALIZER in (pod["metadata"].get("finalizers") or [])


def index_of(pod: dict) -> int | None:
    value = (pod["metadata"].get("annotations") or {}).get(batch.COMPLETION_INDEX)
    return int(value) if value is not None and value.isdigit() else None


def is_ready(pod: dict) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (pod.get("status") or {}).get("conditions") or [])


def finish_time(pod: dict) -> float:
    """When the pod's last container finished (its deletion, or its creation, when none says)."""
    times = [seconds(s["state"]["terminated"]["finishedAt"]) for s in (pod.get("status") or {}).get(
        "containerStatuses") or [] if ((s.get("state") or {}).get("terminated") or {}).get("finishedAt")]
    meta = pod["metadata"]
    return max(times) if times else seconds(meta.get("deletionTimestamp") or meta.get("creationTimestamp"))


def exit_code(pod: dict) -> tuple[str, int] | None:
    """The first container that failed, and its exit code."""
    for s in (pod.get("status") or {}).get("containerStatuses") or []:
        terminated = (s.get("state") or {}).get("terminated") or {}
        if terminated.get("exitCode"):
            return s.get("name", ""), terminated["exitCode"]
    return None


def failure_rule(job: dict, pod: dict) -> tuple[str, str] | None:
    """The podFailurePolicy's first rule matching a failed pod: (action, FailJob message)."""
    name = f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"
    failure = exit_code(pod)
    conditions = {(c.get("type"), c.get("status")) for c in (pod.get("status") or {}).get("conditions") or []}
    for i, rule in enumerate((job["spec"].get("podFailurePolicy") or {}).get("rules") or []):
        codes = rule.get("onExitCodes")
        if codes and failure and codes.get("containerName") in (None, failure[0]):
            inside = failure[1] in (codes.get("values") or [])
            if inside == (codes.get("operator") == "In"):
                return rule["action"], (f"Container {failure[0]} for pod {name} failed with exit code {failure[1]} "
                                        f"matching FailJob rule at index {i}")
        for pattern in rule.get("onPodConditions") or []:
            if (pattern.get("type"), pattern.get("status", "True")) in conditions:
                return rule["action"], f"Pod {name} has condition {pattern['type']} matching FailJob rule at index {i}"
    return None
