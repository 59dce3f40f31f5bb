"""The strategic merge patch `kubectl apply` sends: apimachinery's CreateThreeWayMergePatch
(strategicpatch/patch.go v0.32.4: diffMaps, diffLists and their helpers), ported.

From the last applied manifest (`original`), the new one (`modified`) and the live object
(`current`): what `modified` sets that `current` holds otherwise, plus what `original` set that
`modified` dropped — `null` for a map key, `{<key>: …, $patch: delete}` for an item of a merged
list, `$deleteFromPrimitiveList/<list>` for a primitive — with `$setElementOrder/<list>` to keep
the manifest's order and `$retainKeys` where a field's strategy says so. Whatever nobody's manifest
set (defaults, a controller's fields) is left alone.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Any

from api.gojson import go_equal, go_str, go_type, sort_scalars
from api.patch.errors import malformed, no_merge_key
from api.patch.mergekeys import Schema
from api.patch.order import dedupe_scalars, element_kind, sort_by
from api.patch.strategic import COMBINE, DELETE_FROM, DIRECTIVE, RETAIN_KEYS, SET_ORDER, merge_map


@dataclass(frozen=True)
class Diff:
    set_element_order: bool = True
    ignore_changes: bool = False  # changed and added values stay out of the patch
    ignore_deletions: bool = False  # dropped values stay out of the patch
    retain_keys: bool = False  # the map's field has the retainKeys strategy


def three_way(kind: str, original: dict, modified: dict, current: dict) -> dict:
    """The patch taking `current` to `modified`, deleting what `original` set and `modified` dropped."""
    schema = Schema(kind)
    delta = diff_maps(current, modified, schema, Diff(ignore_deletions=True))
    deletions = diff_maps(original, modified, schema, Diff(ignore_changes=True))
    return merge_map(deletions, delta, schema, COMBINE)


def two_way(kind: str, original: dict, modified: dict) -> dict:
    """The patch taking `original` to `modified` (Go's CreateTwoWayMergePatch)."""
    return diff_maps(original, modified, Schema(kind), Diff())


def diff_maps(original: dict, modified: dict, schema: Schema, options: Diff) -> dict:
    patch: dict = {}
    for key, want in modified.items():
        if key not in original:
            if not options.ignore_changes:
                patch[key] = copy.deepcopy(want)
        else:
            _diff_value(key, original[key], want, patch, schema, options)
    if not options.ignore_deletions:
        patch.update({key: None for key in original if key not in modified})
    retained = [key for key, value in modified.items() if value is not None] if options.retain_keys else []
    dropped = any(value is not None and key not in modified for key, value in original.items())
    if retained and (patch or dropped):
        patch[RETAIN_KEYS] = sort_scalars(retained)
    return patch


def _diff_value(key: str, have: Any, want: Any, patch: dict, schema: Schema, options: Diff) -> None:
    if key == DIRECTIVE:
        if not isinstance(have, str) or not isinstance(want, str):
            raise malformed(f"invalid value for special key: {DIRECTIVE}")
        if have != want:
            patch[key] = want
    elif go_type(have) != go_type(want):
        if not options.ignore_changes:
            patch[key] = copy.deepcopy(want)
    elif isinstance(want, dict):
        strategy = schema.strategy(key)
        sub = diff_maps(have, want, schema.child(key), replace(options, retain_keys=strategy.retain_keys))
        if sub:
            patch[key] = sub
    elif isinstance(want, list):
        _diff_list_field(key, have, want, patch, schema, options)
    elif not options.ignore_changes and not go_equal(have, want):
        patch[key] = want


def _diff_list_field(key: str, have: list, want: list, patch: dict, schema: Schema, options: Diff) -> None:
    strategy = schema.strategy(key)
    if not strategy.merge:
        if not options.ignore_changes and not go_equal(have, want):
            patch[key] = copy.deepcopy(want)
        return
    options = replace(options, retain_keys=strategy.retain_keys)
    changes, deletions, order = diff_lists(have, want, schema.child(key), strategy.key, options)
    if changes:
        patch[key] = changes
    if deletions:
        patch[f"{DELETE_FROM}/{key}"] = deletions
    if order:
        patch[f"{SET_ORDER}/{key}"] = order


def diff_lists(original: list, modified: list, schema: Schema, key: str, options: Diff) -> tuple[list, list, list]:
    """(changed and added items plus `$patch: delete` items, deleted primitives, the element order)."""
    if not original:
        return ([], [], []) if not modified or options.ignore_changes else (copy.deepcopy(modified), [], [])
    if element_kind(original, modified) == "map":
        return _diff_map_lists(original, modified, schema, key, options)
    return _diff_scalar_lists(original, modified, options)


def _diff_map_lists(original: list, modified: list, schema: Schema, key: str, options: Diff) -> tuple[list, list, list]:
    changes, deletions = _diff_items(original, modified, schema, key, options)
    changes = sort_by(changes, modified, key, "map") + deletions
    same_order = len(original) == len(modified) and all(
        go_equal(_merge_value(a, key), _merge_value(b, key)) for a, b in zip(original, modified))
    wanted = (not options.ignore_changes and (changes or not same_order)) or \
        (not options.ignore_deletions and changes)
    order = [{key: item[key]} for item in modified] if options.set_element_order and wanted else []
    return changes, [], order


def _merge_value(item: dict, key: str) -> Any:
    if key not in item:
        raise no_merge_key(item, key)
    return item[key]


def _diff_items(original: list, modified: list, schema: Schema, key: str, options: Diff) -> tuple[list, list]:
    """Go's `diffListsOfMaps`: both lists walked in merge-key order (by `%v` text)."""
    old, new = _by_key(original, key), _by_key(modified, key)
    changes, deletions, i, j = [], [], 0, 0
    while i < len(old) or j < len(new):
        old_key = go_str(_merge_value(old[i], key)) if i < len(old) else None
        new_key = go_str(_merge_value(new[j], key)) if j < len(new) else None
        if old_key is not None and old_key == new_key:
            sub = diff_maps(old[i], new[j], schema, options)
            if sub:
                changes.append({**sub, key: new[j][key]})
            i, j = i + 1, j + 1
        elif old_key is None or (new_key is not None and old_key > new_key):
            if not options.ignore_changes:
                changes.append(copy.deepcopy(new[j]))
            j += 1
        else:
            if not options.ignore_deletions:
                deletions.append({key: old[i][key], DIRECTIVE: "delete"})
            i += 1
    return changes, deletions


def _by_key(items: list, key: str) -> list:
    return sorted(items, key=lambda item: go_str(item.get(key)))


def _diff_scalar_lists(original: list, modified: list, options: Diff) -> tuple[list, list, list]:
    """Go's `diffListsOfScalars`; its order list compares the *sorted* live list with the manifest (sic)."""
    old, new = sort_scalars(original), sort_scalars(modified)
    added, deleted, i, j = [], [], 0, 0
    while i < len(old) or j < len(new):
        a = go_str(old[i]) if i < len(old) else None
        b = go_str(new[j]) if j < len(new) else None
        if a is not None and a == b:
            i, j = i + 1, j + 1
        elif a is None or (b is not None and a > b):
            if not options.ignore_changes:
                added.append(new[j])
            j += 1
        else:
            if not options.ignore_deletions:
                deleted.append(old[i])
            i += 1
    added = sort_by(added, modified, "", "scalar")
    wanted = (not options.ignore_deletions and deleted) or (not options.ignore_changes and not go_equal(old, modified))
    order = list(modified) if options.set_element_order and wanted else []
    return added, dedupe_scalars(deleted), order
