"""`kubus apply`: create what is missing, else patch what the manifest changed, kubectl's way.

Like `kubectl apply` (client-side), the manifest is kept in the
`kubectl.kubernetes.io/last-applied-configuration` annotation. An apply sends a strategic merge
patch of the three-way difference (api/patch/diff): fields the manifest sets and the object
lacks or holds otherwise, and deletions of what the last applied manifest set and this one no
longer does — a map key, an env var or a container (by merge key), a finalizer. Fields nobody's
manifest set (a pod's `nodeName`, a controller's annotations and env vars, defaults) stay.
"""
from __future__ import annotations

import copy
import json

from api.patch.diff import three_way
from api.registry import lookup
from api.status import StatusError
from runtime.client import Client

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def apply_one(client: Client, obj: dict, namespace: str | None) -> str:
    """Returns 'created', 'configured' or 'unchanged'; raises StatusError."""
    info = lookup(obj.get("kind") or "")
    ns = (namespace or (obj.get("metadata") or {}).get("namespace") or "default") if info.namespaced else None
    if namespace and info.namespaced:
        obj.setdefault("metadata", {})["namespace"] = namespace
    modified = with_last_applied(obj)
    name = (obj.get("metadata") or {}).get("name")
    try:
        client.create(modified, namespace=ns)
        return "created"
    except StatusError as exc:
        if exc.reason != "AlreadyExists" or not name:  # a generateName manifest always creates
            raise
    current = client.get(info.kind, name, ns)
    patch = three_way(info.kind, last_applied(current), modified, current)
    if not patch:
        return "unchanged"
    updated = client.patch(info.kind, name, patch, ns, patch_type="strategic")
    same = updated["metadata"]["resourceVersion"] == current["metadata"]["resourceVersion"]
    return "unchanged" if same else "configured"


def with_last_applied(manifest: dict) -> dict:
    """The manifest carrying itself (without that annotation) as the last applied configuration."""
    obj = copy.deepcopy(manifest)
    meta = obj.setdefault("metadata", {})
    annotations = meta.pop("annotations", None) or {}
    annotations.pop(LAST_APPLIED, None)
    if annotations:
        meta["annotations"] = annotations
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"))
    meta["annotations"] = {**annotations, LAST_APPLIED: text}
    return obj


def last_applied(current: dict) -> dict:
    text = ((current.get("metadata") or {}).get("annotations") or {}).get(LAST_APPLIED)
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
