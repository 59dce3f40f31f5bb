"""Patches of an object, the three kinds the Kubernetes API takes, by their patch type: JSON merge
patch (`merge`, api/patch/mergepatch), JSON patch (`json`, api/patch/jsonpatch) and strategic merge patch
(`strategic`, api/patch/strategic)."""
from __future__ import annotations

from typing import Any

from api.patch import strategic
from api.patch.jsonpatch import MAX_COPY_BYTES, apply_json_patch
from api.patch.mergepatch import merge_patch
from api.status import Cause, StatusError

PATCH_TYPES = ("merge", "json", "strategic")
CONTENT_TYPES = {"application/merge-patch+json": "merge", "application/json-patch+json": "json",
                 "application/strategic-merge-patch+json": "strategic"}


def apply_patch(kind: str, current: dict, patch: Any, patch_type: str = "merge",
                max_bytes: int = MAX_COPY_BYTES) -> dict:
    """`current` with `patch` applied (a copy); a StatusError when the patch does not apply. `max_bytes`
    is the object limit: what a JSON patch's copies may add (merge patches build nothing beyond their
    inputs)."""
    if patch_type == "merge":
        patched = merge_patch(current, patch)
    elif patch_type == "json":
        patched = apply_json_patch(current, patch, max_bytes)
    elif patch_type == "strategic":
        patched = without_directives(strategic.apply(kind, current, patch))
    else:
        raise StatusError("UnsupportedMediaType", "the body of the request was in an unknown format - accepted media "
                          "types include: " + ", ".join(CONTENT_TYPES))
    if not isinstance(patched, dict):
        raise StatusError("Invalid", f'"" is invalid: patch: Invalid value: the patched object is a '
                          f"{type(patched).__name__}: an object is expected",
                          [Cause("patch", "the patched object is not a JSON object")])
    return patched


def without_directives(value: Any) -> Any:
    """The `$` keys a strategic patch can leave in what it adds (a new container's
    `$setElementOrder/env`), gone: Kubernetes drops them decoding into its typed object."""
    if isinstance(value, dict):
        return {k: without_directives(v) for k, v in value.items() if not k.startswith("$")}
    if isinstance(value, list):
        return [without_directives(v) for v in value]
    return value
