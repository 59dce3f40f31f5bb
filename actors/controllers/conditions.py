"""A Deployment's Available and Progressing conditions, with Kubernetes' reasons and messages."""
from __future__ import annotations

from actors.controllers import rollout
from api.times import rfc3339, seconds


def _condition(type_: str, status: str, reason: str, message: str, previous: dict | None, now: str,
               touched: bool) -> dict:
    same = previous is not None and previous.get("status") == status
    return {"type": type_, "status": status, "reason": reason, "message": message,
            "lastUpdateTime": now if touched or not same or previous.get("reason") != reason
            else previous.get("lastUpdateTime", now),
            "lastTransitionTime": previous.get("lastTransitionTime", now) if same else now}


def progressed(new: dict, old: dict) -> bool:
    """More updated, fewer old, or more available or ready replicas than the last status said."""
    return new.get("updatedReplicas", 0) > old.get("updatedReplicas", 0) or \
        new.get("replicas", 0) - new.get("updatedReplicas", 0) < old.get("replicas", 0) - old.get("updatedReplicas", 0) \
        or new.get("availableReplicas", 0) > old.get("availableReplicas", 0) or \
        new.get("readyReplicas", 0) > old.get("readyReplicas", 0)


def deployment_conditions(d: dict, status: dict, new_rs: dict | None, now_s: float,
                          created_here: bool = True) -> list[dict]:
    """`created_here`: this controller created `new_rs` (else it found it: adopted, or rolled back to)."""
    old = d.get("status") or {}
    previous = {c["type"]: c for c in old.get("conditions") or []}
    now = rfc3339(now_s)
    replicas = d["spec"].get("replicas", 1)
    _, unavailable = rollout.fenceposts(d)
    if status["availableReplicas"] >= replicas - unavailable:
        available = ("True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
    else:
        available = ("False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability.")
    out = [_condition("Available", *available, previous.get("Available"), now, False)]
    name = new_rs["metadata"]["name"] if new_rs else ""
    before = previous.get("Progressing")
    if d["spec"].get("paused"):
        progressing, touched = ("Unknown", "DeploymentPaused", "Deployment is paused"), False
    elif rollout.complete(d, status):
        progressing, touched = ("True", "NewReplicaSetAvailable", f'ReplicaSet "{name}" has successfully progressed.'), False
    elif name and created_here and (before is None or f'"{name}"' not in before.get("message", "")):
        progressing, touched = ("True", "NewReplicaSetCreated", f'Created new replica set "{name}"'), True
    elif name and before is None:
        progressing, touched = ("True", "FoundNewReplicaSet", f'Found new replica set "{name}"'), True
    elif name and f'"{name}"' not in before.get("message", ""):
        progressing, touched = ("True", "ReplicaSetUpdated", f'ReplicaSet "{name}" is progressing.'), True
    elif before.get("reason") in ("DeploymentPaused", "NewReplicaSetAvailable") or progressed(status, old):
        progressing, touched = ("True", "ReplicaSetUpdated", f'ReplicaSet "{name}" is progressing.'), True
    elif before.get("reason") == "ProgressDeadlineExceeded" or \
            seconds(before["lastUpdateTime"]) + d["spec"].get("progressDeadlineSeconds", 600) < now_s:
        progressing, touched = ("False", "ProgressDeadlineExceeded", f'ReplicaSet "{name}" has timed out progressing.'), False
    else:
        return out + [before]
    return out + [_condition("Progressing", *progressing, before, now, touched)]
