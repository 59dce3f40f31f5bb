"""JSON merge patch (RFC 7386, `application/merge-patch+json`) as kube-apiserver applies it, with
gopkg.in/evanphx/json-patch.v4's MergePatch: `null` deletes a key; an object merges into an object;
anything else replaces, with the nulls of its objects pruned — except an array patched over an
object, which Go keeps as it came."""
from __future__ import annotations

import copy
from typing import Any

from api.status import bad_request

BAD_PATCH = "Invalid JSON Patch"


def merge_patch(target: Any, patch: Any) -> Any:
    """`target` with `patch` merged in (a copy); BadRequest for a patch that is not an object or array."""
    if isinstance(patch, list):
        return _pruned(copy.deepcopy(patch))
    if not isinstance(patch, dict):
        raise bad_request(BAD_PATCH)
    if not isinstance(target, dict):
        return _pruned(copy.deepcopy(patch))
    return _merge(copy.deepcopy(target), copy.deepcopy(patch))


def _merge(doc: dict, patch: dict) -> dict:
    for key, value in patch.items():
        if value is None:
            doc.pop(key, None)
        elif doc.get(key) is None:
            doc[key] = _pruned(value)
        elif not isinstance(doc[key], dict):
            doc[key] = _pruned(value)
        elif isinstance(value, dict):
            doc[key] = _merge(doc[key], value)
        else:
            doc[key] = value
    return doc


def _pruned(value: Any) -> Any:
    """Go's `pruneNulls`: null members of objects go, at any depth (null array items stay)."""
    if isinstance(value, dict):
        return {k: _pruned(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_pruned(v) for v in value]
    return value
