"""`fieldsV1` as kubus carries it (DESIGN.md contract 2): one string, the JSON text of the tree, as Kubernetes
keeps `FieldsV1{Raw []byte}` — passed through the bus and the store as one msgpack str (no ~20 small maps
to decode and encode at every hop), `unpack`ed only where fields are read (the store's Update bookkeeping,
the apiserver's apply) and `expanded` back to the JSON object wherever an object leaves kubus for a
Kubernetes client (the gateway, the CLI's -o json|yaml, admission webhooks and policies, the audit log).

A map found where the text belongs (a Kubernetes client's object, a manifest, an object stored before
this form) is the tree itself: `unpack` reads both, `packed` turns maps into text."""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

_INVALID = object()


def pack(tree: Any) -> str:
    """The JSON text of a `fieldsV1` value, compact as Kubernetes sends it."""
    return json.dumps(tree, separators=(",", ":"), ensure_ascii=False)


def unpack(value: Any) -> Any:
    """The tree of a `fieldsV1` value: text decoded (None when it is not JSON), anything else as it is.
    Decoded trees are shared between callers (the same text recurs on every write of an object and on
    objects of one template): read them, never change them."""
    if not isinstance(value, str):
        return value
    tree = _loads(value)
    return None if tree is _INVALID else tree


@lru_cache(maxsize=4096)
def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return _INVALID


def packed(entries: Any, sent_as_json: bool = False) -> Any:
    """`managedFields` entries with each `fieldsV1` as text (the list itself when all are). With
    `sent_as_json` (a body a Kubernetes client sent), every value is the tree, a string too — whose text
    then decodes to no fields, as Kubernetes' raw bytes of a JSON string would."""
    if not isinstance(entries, list):
        return entries
    out = None
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or entry.get("fieldsV1") is None:
            continue
        value = entry["fieldsV1"]
        if isinstance(value, str) and not sent_as_json:
            continue
        if out is None:
            out = list(entries)
        out[i] = {**entry, "fieldsV1": pack(value)}
    return entries if out is None else out


def expanded(obj: Any) -> Any:
    """The object as a Kubernetes client reads it: each `fieldsV1` text its JSON object (a copy of the
    object's top and metadata; `obj` itself when there is nothing to expand)."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    entries = meta.get("managedFields") if isinstance(meta, dict) else None
    if not isinstance(entries, list) or not any(isinstance(e, dict) and isinstance(e.get("fieldsV1"), str)
                                                for e in entries):
        return obj
    out = [{**e, "fieldsV1": unpack(e["fieldsV1"])} if isinstance(e, dict) and isinstance(e.get("fieldsV1"), str)
           else e for e in entries]
    return {**obj, "metadata": {**meta, "managedFields": out}}


def packed_object(obj: Any, sent_as_json: bool = False) -> Any:
    """`obj` with its managedFields `packed` (a copy of its top and metadata when any changes)."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    entries = meta.get("managedFields") if isinstance(meta, dict) else None
    out = packed(entries, sent_as_json)
    return obj if out is entries else {**obj, "metadata": {**meta, "managedFields": out}}
