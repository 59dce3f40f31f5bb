"""`kubus apply`: create what is missing, update what differs, report each document on its own line."""
from __future__ import annotations

import copy

from api.registry import lookup
from api.status import StatusError
from runtime.client import Client

APPLY_RETRIES = 5
SERVER_FIELDS = ("uid", "resourceVersion", "creationTimestamp", "generation", "deletionTimestamp",
                 "deletionGracePeriodSeconds")


def apply_one(client: Client, obj: dict, namespace: str | None) -> str:
    """Returns 'created', 'configured' or 'unchanged'; raises StatusError."""
    info = lookup(obj.get("kind") or "")
    ns = (namespace or (obj.get("metadata") or {}).get("namespace") or "default") if info.namespaced else None
    if namespace and info.namespaced:
        obj.setdefault("metadata", {})["namespace"] = namespace
    if not (obj.get("metadata") or {}).get("name"):
        client.create(obj, namespace=ns)
        return "created"
    for _ in range(APPLY_RETRIES):
        try:
            client.create(obj, namespace=ns)
            return "created"
        except StatusError as exc:
            if exc.reason != "AlreadyExists":
                raise
        current = client.get(info.kind, obj["metadata"]["name"], ns)
        desired = _desired(current, obj)
        try:
            updated = client.update(desired)
        except StatusError as exc:
            if exc.reason == "NotFound" or exc.reason == "Conflict":
                continue
            raise
        same = updated["metadata"]["resourceVersion"] == current["metadata"]["resourceVersion"]
        return "unchanged" if same else "configured"
    raise StatusError("Conflict", f"{info.kind} {obj['metadata']['name']} kept changing while being applied")


def _desired(current: dict, manifest: dict) -> dict:
    """The manifest's fields over the stored object (server-owned metadata and status kept)."""
    desired = copy.deepcopy(manifest)
    meta = desired.setdefault("metadata", {})
    for field in SERVER_FIELDS:
        if field in current["metadata"]:
            meta[field] = current["metadata"][field]
    if "status" in current:
        desired["status"] = current["status"]
    return desired
