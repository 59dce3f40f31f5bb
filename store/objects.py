"""Server-owned object fields: identity, timestamps, revisions, immutability on update."""
from __future__ import annotations

import secrets
import uuid
from typing import Any

from api import batch, batch_validation
from api.apps import TEMPLATE_GENERATION
from api.errors import invalid
from api.names import MAX_GENERATED_PREFIX
from api.qos import qos_class
from api.status import Cause
from api.times import rfc3339 as now_rfc3339

_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # Kubernetes' generateName alphabet: no vowels, no 0/1/3
IMMUTABLE = ("name", "namespace", "uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds")


def generate_name(prefix: str) -> str:
    return prefix[:MAX_GENERATED_PREFIX] + "".join(secrets.choice(_ALPHABET) for _ in range(5))


def stamp_new(obj: dict, rev: int, now: float) -> None:
    meta = obj["metadata"]
    meta["uid"] = str(uuid.uuid4())
    meta["creationTimestamp"] = now_rfc3339(now)
    meta["resourceVersion"] = str(rev)
    meta["generation"] = 1
    for field in ("deletionTimestamp", "deletionGracePeriodSeconds"):
        meta.pop(field, None)


def job_selector(obj: dict) -> None:
    """A new Job's generated selector, made once it has its UID (Kubernetes' Job strategy does it in
    Validate, after the UID is set); Invalid when the user's labels or selector contradict it."""
    batch.generate_selector(obj)
    causes = batch_validation.generated_selector_causes(obj)
    if causes:
        raise invalid("Job", obj["metadata"]["name"], causes)


def template_generation(new: dict, old: dict | None) -> None:
    """A DaemonSet's template generation (Kubernetes' strategy keeps spec.templateGeneration, apps/v1
    shows it as an annotation): 1 when created, one more each time the template changes."""
    text = ((old or {}).get("metadata", {}).get("annotations") or {}).get(TEMPLATE_GENERATION, "0")
    before = int(text) if str(text).isdigit() else 0
    changed = old is None or (new.get("spec") or {}).get("template") != (old.get("spec") or {}).get("template")
    annotations = new["metadata"].setdefault("annotations", {})
    annotations[TEMPLATE_GENERATION] = str(before + 1 if changed else before)


def carry_server_fields(kind: str, old: dict, new: dict) -> None:
    """An update may not change immutable metadata; fields left out keep their stored values."""
    old_meta, new_meta = old["metadata"], new.setdefault("metadata", {})
    causes = []
    for field in IMMUTABLE:
        if field in new_meta and new_meta[field] != old_meta.get(field):
            causes.append(Cause(f"metadata.{field}", f"Invalid value: {new_meta[field]!r}: field is immutable"))
        if field in old_meta:
            new_meta[field] = old_meta[field]
        else:
            new_meta.pop(field, None)
    if old_meta.get("deletionTimestamp"):
        added = set(new_meta.get("finalizers") or []) - set(old_meta.get("finalizers") or [])
        if added:
            causes.append(Cause("metadata.finalizers", "Forbidden: no new finalizers can be added if the object "
                                                       "is being deleted", "FieldValueForbidden"))
    if causes:
        raise invalid(kind, old_meta["name"], causes)
    new_meta["generation"] = old_meta.get("generation", 1)
    if kind == "Pod":
        _carry_admitted(old.get("spec") or {}, new)


POD_ADMITTED = ("serviceAccountName", "priorityClassName", "priority", "preemptionPolicy")


def _carry_admitted(old_spec: dict, new: dict) -> None:
    """What admission gave a pod at its creation (its ServiceAccount, its priority) stays when a
    replace leaves it out, as Kubernetes' Priority admission keeps it on update."""
    spec = new.get("spec")
    if isinstance(spec, dict):
        for field in POD_ADMITTED:
            if spec.get(field) is None and field in old_spec:
                spec[field] = old_spec[field]


STARTS_PENDING = ("Pod", "PersistentVolumeClaim")


def created_status(kind: str, obj: dict) -> None:
    """A new pod or claim starts Pending whatever its body says (the strategies' PrepareForCreate): a pod
    said to be Failed was charged to no quota and counted by no scheduler, yet its kubelet ran it; a claim
    said to be Bound had its volumeName mounted. Only their /status writers (kubelet, binder) move them on.
    A pod's QoS class is set with it, as Kubernetes' PodStrategy does."""
    if kind in STARTS_PENDING:
        obj["status"] = {"phase": "Pending", **({"qosClass": qos_class(obj)} if kind == "Pod" else {})}


def custom_created(info, obj: dict) -> None:
    """A custom object with a status subresource starts without status (only /status writes it)."""
    if info.status_subresource:
        obj.pop("status", None)


def custom_updated(info, old: dict, new: dict) -> None:
    """The main endpoint of a custom object with a status subresource keeps the old status; its generation
    follows any change outside metadata (and status), as the customresource strategy counts it."""
    if info.status_subresource:
        new.pop("status", None)
        if "status" in old:
            new["status"] = old["status"]
    if {k: v for k, v in new.items() if k != "metadata"} != {k: v for k, v in old.items() if k != "metadata"}:
        new["metadata"]["generation"] = old["metadata"].get("generation", 1) + 1


def same_content(a: dict, b: dict) -> bool:
    """Equal apart from resourceVersion: such an update writes nothing."""
    meta_a = {k: v for k, v in a.get("metadata", {}).items() if k != "resourceVersion"}
    meta_b = {k: v for k, v in b.get("metadata", {}).items() if k != "resourceVersion"}
    return meta_a == meta_b and {k: v for k, v in a.items() if k != "metadata"} == \
        {k: v for k, v in b.items() if k != "metadata"}


def condition(type_: str, status: str, now: float, **extra: Any) -> dict:
    return {"type": type_, "status": status, "lastProbeTime": None, "lastTransitionTime": now_rfc3339(now), **extra}


def set_condition(status: dict, cond: dict) -> None:
    conditions = status.setdefault("conditions", [])
    for i, existing in enumerate(conditions):
        if existing.get("type") == cond["type"]:
            if existing.get("status") == cond["status"]:
                cond["lastTransitionTime"] = existing.get("lastTransitionTime", cond["lastTransitionTime"])
            conditions[i] = cond
            return
    conditions.append(cond)
