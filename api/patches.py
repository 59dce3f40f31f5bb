"""Patches of an object, the three kinds the Kubernetes API takes: JSON merge patch (RFC 7386,
`application/merge-patch+json`), JSON patch (RFC 6902) and strategic merge patch."""
from __future__ import annotations

import copy
from typing import Any

from api.status import StatusError, bad_request

PATCH_TYPES = ("merge", "json", "strategic")
CONTENT_TYPES = {"application/merge-patch+json": "merge", "application/json-patch+json": "json",
                 "application/strategic-merge-patch+json": "strategic"}


def apply_patch(kind: str, current: dict, patch: Any, patch_type: str = "merge") -> dict:
    """`current` with `patch` applied; BadRequest when the patch is not one of its type."""
    if patch_type == "merge":
        if not isinstance(patch, dict):
            raise bad_request("patch needs a merge patch object")
        return merge_patch(current, patch)
    raise StatusError("UnsupportedMediaType", f"the patch type {patch_type!r} is not supported yet")


def merge_patch(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result
