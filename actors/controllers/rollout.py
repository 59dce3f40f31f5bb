"""Deployment arithmetic as Kubernetes' deployment_util has it: template hash, fenceposts, the new
ReplicaSet's size, how far old ones may shrink, status and conditions."""
from __future__ import annotations

import copy
import json
import math

from actors.controllers.claims import controller_ref

HASH_LABEL = "pod-template-hash"
REVISION = "deployment.kubernetes.io/revision"
REVISION_HISTORY = "deployment.kubernetes.io/revision-history"
DESIRED = "deployment.kubernetes.io/desired-replicas"
MAX_REPLICAS = "deployment.kubernetes.io/max-replicas"
ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"


def fnv32a(data: bytes) -> int:
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def template_hash(template: dict, collision_count: int | None = None) -> str:
    """FNV-32a of the template (canonical JSON here, Go's deep printer there), SafeEncodeString'd."""
    data = json.dumps(template, sort_keys=True, separators=(",", ":")).encode()
    if collision_count:
        data += collision_count.to_bytes(8, "little")
    return "".join(ALPHANUMS[ord(c) % len(ALPHANUMS)] for c in str(fnv32a(data)))


def without_hash(template: dict) -> dict:
    t = copy.deepcopy(template or {})
    (t.get("metadata") or {}).get("labels", {}).pop(HASH_LABEL, None)
    return t


def _scaled(value, total: int, round_up: bool) -> int:
    if isinstance(value, str) and value.endswith("%"):
        exact = int(value[:-1]) * total / 100
        return math.ceil(exact) if round_up else math.floor(exact)
    return int(value or 0)


def fenceposts(deployment: dict) -> tuple[int, int]:
    """(maxSurge, maxUnavailable) resolved against spec.replicas; never both 0."""
    spec = deployment["spec"]
    rolling = (spec.get("strategy") or {}).get("rollingUpdate") or {}
    replicas = spec.get("replicas", 1)
    surge = _scaled(rolling.get("maxSurge", "25%"), replicas, True)
    unavailable = _scaled(rolling.get("maxUnavailable", "25%"), replicas, False)
    if surge == 0 and unavailable == 0:
        unavailable = 1
    return surge, unavailable


def replicas_of(rs: dict) -> int:
    return rs["spec"].get("replicas", 0)


def available_of(rs: dict) -> int:
    return (rs.get("status") or {}).get("availableReplicas", 0)


def revision_of(rs: dict) -> int:
    try:
        return int((rs["metadata"].get("annotations") or {}).get(REVISION, 0))
    except ValueError:
        return 0


def new_rs_replicas(deployment: dict, all_rs: list[dict], new_rs: dict | None) -> int:
    """NewRSNewReplicas for RollingUpdate."""
    replicas = deployment["spec"].get("replicas", 1)
    current_new = replicas_of(new_rs) if new_rs else 0
    if current_new >= replicas:
        return replicas
    surge, _ = fenceposts(deployment)
    total = sum(replicas_of(rs) for rs in all_rs)
    if total >= replicas + surge:
        return current_new
    return current_new + min(replicas + surge - total, replicas - current_new)


def max_scaled_down(deployment: dict, all_rs: list[dict], new_rs: dict | None) -> int:
    replicas = deployment["spec"].get("replicas", 1)
    _, unavailable = fenceposts(deployment)
    new_unavailable = (replicas_of(new_rs) - available_of(new_rs)) if new_rs else 0
    return sum(replicas_of(rs) for rs in all_rs) - (replicas - unavailable) - new_unavailable


def new_replicaset(deployment: dict, hash_: str, revision: int, replicas: int) -> dict:
    meta, spec = deployment["metadata"], deployment["spec"]
    template = copy.deepcopy(spec["template"])
    template.setdefault("metadata", {}).setdefault("labels", {})[HASH_LABEL] = hash_
    selector = copy.deepcopy(spec["selector"])
    selector.setdefault("matchLabels", {})[HASH_LABEL] = hash_
    surge, _ = fenceposts(deployment)
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": f"{meta['name']}-{hash_}", "namespace": meta["namespace"],
                         "labels": dict(template["metadata"]["labels"]),
                         "annotations": {REVISION: str(revision), DESIRED: str(spec.get("replicas", 1)),
                                         MAX_REPLICAS: str(spec.get("replicas", 1) + surge)},
                         "ownerReferences": [controller_ref(deployment)]},
            "spec": {"replicas": replicas, "minReadySeconds": spec.get("minReadySeconds", 0), "selector": selector,
                     "template": template}}


def complete(deployment: dict, status: dict) -> bool:
    replicas = deployment["spec"].get("replicas", 1)
    return status.get("updatedReplicas", 0) == replicas and status.get("replicas", 0) == replicas and \
        status.get("availableReplicas", 0) == replicas and \
        status.get("observedGeneration", 0) >= deployment["metadata"].get("generation", 1)


def calculate_status(deployment: dict, all_rs: list[dict], new_rs: dict | None) -> dict:
    def total(field: str) -> int:
        return sum((rs.get("status") or {}).get(field, 0) for rs in all_rs)

    available = total("availableReplicas")
    status = {"observedGeneration": deployment["metadata"].get("generation", 1), "replicas": total("replicas"),
              "updatedReplicas": (new_rs.get("status") or {}).get("replicas", 0) if new_rs else 0,
              "readyReplicas": total("readyReplicas"), "availableReplicas": available,
              "unavailableReplicas": max(0, sum(replicas_of(rs) for rs in all_rs) - available)}
    collisions = (deployment.get("status") or {}).get("collisionCount")
    if collisions:
        status["collisionCount"] = collisions
    return status


def is_scaling_event(deployment: dict, active: list[dict]) -> bool:
    """spec.replicas differs from what the active sets were last sized for."""
    wanted = str(deployment["spec"].get("replicas", 1))
    return any((rs["metadata"].get("annotations") or {}).get(DESIRED) not in (None, wanted) for rs in active)


def proportional_sizes(deployment: dict, active: list[dict]) -> dict[str, int]:
    """Kubernetes' proportional scaling: spread the change over the active sets by their share of
    the size they were made for (max-replicas); leftovers go to the largest set."""
    surge, _ = fenceposts(deployment)
    replicas = deployment["spec"].get("replicas", 1)
    allowed = replicas + surge
    to_add = allowed - sum(replicas_of(rs) for rs in active)
    newer_first = sorted(active, key=lambda rs: rs["metadata"].get("creationTimestamp", ""), reverse=to_add > 0)
    ordered = sorted(newer_first, key=lambda rs: -replicas_of(rs))
    sizes = {rs["metadata"]["name"]: replicas_of(rs) for rs in ordered}
    added = 0
    for rs in ordered:
        if to_add == 0 or added == to_add or replicas_of(rs) == 0:
            break
        annotated = int((rs["metadata"].get("annotations") or {}).get(MAX_REPLICAS, 0)) or \
            (deployment.get("status") or {}).get("replicas", 0) or replicas_of(rs)
        share = math.floor(replicas_of(rs) * allowed / annotated + 0.5)  # Go's math.Round
        fraction = share - replicas_of(rs) if replicas else -replicas_of(rs)
        step = min(fraction, to_add - added) if to_add > 0 else max(fraction, to_add - added)
        sizes[rs["metadata"]["name"]] += step
        added += step
    if ordered and added != to_add:
        sizes[ordered[0]["metadata"]["name"]] += to_add - added
    return sizes
