"""`kubus apply`: create what is missing, else patch what the manifest changed, kubectl's way.

Like `kubectl apply` (client-side), the manifest is kept in the
`kubectl.kubernetes.io/last-applied-configuration` annotation. An apply sends a merge patch of the
three-way difference: fields the manifest sets and the object lacks or holds otherwise, and `null`
for fields the last applied manifest set that this one no longer does. Fields nobody's manifest set
(a pod's `nodeName`, a controller's annotations, defaults) are left as they are.
"""
from __future__ import annotations

import copy
import json

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
    patch = three_way(last_applied(current), modified, current)
    if not patch:
        return "unchanged"
    updated = client.patch(info.kind, name, patch, ns)
    same = updated["metadata"]["resourceVersion"] == current["metadata"]["resourceVersion"]
    return "unchanged" if same else "configured"


def with_last_applied(manifest: dict) -> dict:
    """The manifest carrying itself (without that annotation) as the last applied configuration."""
    obj = copy.deepcopy(manifest)
    annotations = obj.setdefault("metadata", {}).setdefault("annotations", {}) or {}
    annotations.pop(LAST_APPLIED, None)
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"))
    obj["metadata"]["annotations"] = {**annotations, LAST_APPLIED: text}
    return obj


def last_applied(current: dict) -> dict:
    text = ((current.get("metadata") or {}).get("annotations") or {}).get(LAST_APPLIED)
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def three_way(original: dict, modified: dict, current: dict) -> dict:
    """A JSON merge patch taking `current` to `modified`, deleting what `original` set and
    `modified` dropped; lists are replaced whole (merge-patch semantics)."""
    patch: dict = {}
    for key, want in modified.items():
        have = current.get(key)
        if isinstance(want, dict) and isinstance(have, dict):
            before = original.get(key)
            sub = three_way(before if isinstance(before, dict) else {}, want, have)
            if sub:
                patch[key] = sub
        elif want != have:
            patch[key] = want
    for key in original:
        if key not in modified and key in current:
            patch[key] = None
    return patch
