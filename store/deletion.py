"""Graceful deletion as Kubernetes does it: deletionTimestamp, grace periods, finalizers."""
from __future__ import annotations

from api.apiextensions import CLEANUP_FINALIZER, is_true
from store.objects import now_rfc3339

TERMINAL_PHASES = ("Succeeded", "Failed")


def grace_period(kind: str, obj: dict, options: dict) -> int:
    """The grace period in effect; only pods have one (default 30 s, 0 when unbound or finished)."""
    if kind != "Pod":
        return 0
    grace = options.get("gracePeriodSeconds")
    if grace is None:
        grace = obj["spec"].get("terminationGracePeriodSeconds", 30)
    grace = 1 if grace < 0 else grace
    if not obj["spec"].get("nodeName") or (obj.get("status") or {}).get("phase") in TERMINAL_PHASES:
        return 0
    return grace


PROPAGATION_FINALIZERS = {"Foreground": "foregroundDeletion", "Orphan": "orphan"}


def mark(kind: str, obj: dict, options: dict, now: float) -> dict | None:
    """None: remove at once. `obj` itself: nothing to change. A new dict: the object, now terminating.
    Foreground and Orphan propagation hold the object with a finalizer the garbage collector removes."""
    obj = _cleanup_held(kind, obj)
    meta = obj["metadata"]
    extra = PROPAGATION_FINALIZERS.get(options.get("propagationPolicy") or "")
    if extra and extra not in (meta.get("finalizers") or []):
        meta = {**meta, "finalizers": list(meta.get("finalizers") or []) + [extra]}
        obj = {**obj, "metadata": meta}
        if meta.get("deletionTimestamp"):
            return obj
    grace = grace_period(kind, obj, options)
    if grace == 0 and not held(kind, obj):
        return None
    current = meta.get("deletionGracePeriodSeconds")
    if meta.get("deletionTimestamp") and (current is None or grace >= current):
        return obj
    marked = {**obj, "metadata": {**meta, "deletionTimestamp": now_rfc3339(now + grace),
                                  "deletionGracePeriodSeconds": grace}}
    if kind == "Namespace":
        marked["status"] = {**(obj.get("status") or {}), "phase": "Terminating"}
    return marked


def _cleanup_held(kind: str, obj: dict) -> dict:
    """An Established CRD's first deletion adds the finalizer its objects' cleanup removes (the CRD's
    storage does it on delete); one never established goes at once."""
    meta = obj["metadata"]
    if kind != "CustomResourceDefinition" or meta.get("deletionTimestamp") or not is_true(obj, "Established") \
            or CLEANUP_FINALIZER in (meta.get("finalizers") or []):
        return obj
    return {**obj, "metadata": {**meta, "finalizers": [*(meta.get("finalizers") or []), CLEANUP_FINALIZER]}}


def held(kind: str, obj: dict) -> bool:
    """Finalizers keep a terminating object; a Namespace also waits for its spec.finalizers (the
    namespace controller's `kubernetes`, removed once the namespace is empty)."""
    spec_finalizers = kind == "Namespace" and (obj.get("spec") or {}).get("finalizers")
    return bool(obj["metadata"].get("finalizers") or spec_finalizers)


def finalizers_released(kind: str, old: dict) -> bool:
    """Clearing the last finalizer removes a terminating object, except a pod its kubelet still runs."""
    return kind != "Pod" or not old["metadata"].get("deletionGracePeriodSeconds")
