"""Strategic merge patch (`application/strategic-merge-patch+json`), ported from apimachinery's
pkg/util/strategicpatch/patch.go v0.32.4 (mergeMap, mergeSlice and their helpers), so kubus answers
what kube-apiserver and `kubectl patch --local` answer, down to the order of list items.

A patch is a JSON object merged into the live one: `null` deletes a key; maps merge key by key;
lists named in `api/patch/mergekeys` merge item by item (by merge key, or as a set of primitives), other
lists are replaced. The directives: `$patch: replace|delete` on a map or a list item (a list item
`{$patch: replace}` replaces the whole list), `$retainKeys: [...]` (clear the keys it lacks),
`$setElementOrder/<list>: [...]` (the order of the merged list) and
`$deleteFromPrimitiveList/<list>: [...]` (remove primitives from a merged list).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from typing import Any

from api.gojson import go_equal, go_key, go_str, go_type, type_name
from api.patch.budget import Budget
from api.patch.errors import BAD_PRIMITIVE_LIST, BAD_RETAIN_KEYS, BAD_SET_ORDER, malformed, no_merge_key
from api.patch.lookup import MergeIndex
from api.patch.mergekeys import Schema
from api.patch.order import DIRECTIVE, dedupe_scalars, element_kind, normalize, partition, split_deletions
from api.status import bad_request

RETAIN_KEYS = "$retainKeys"
SET_ORDER = "$setElementOrder"
DELETE_FROM = "$deleteFromPrimitiveList"


@dataclass(frozen=True)
class Options:
    parallel_lists: bool = True  # apply $deleteFromPrimitiveList and friends (vs. carry them, in a 3-way diff)
    ignore_unmatched_nulls: bool = True  # a null for a key the object lacks is dropped (vs. kept)
    budget: Budget | None = field(default=None, compare=False)  # the list steps a request's patch may take

    def charge(self, *lists: list | None) -> None:
        if self.budget is not None:
            self.budget.charge(sum(len(items) for items in lists if items))


APPLY = Options()
COMBINE = Options(parallel_lists=False, ignore_unmatched_nulls=False)


def apply(kind: str, obj: dict, patch: Any) -> dict:
    """`obj` with the strategic merge `patch` applied; the inputs are left as they were."""
    if patch is None:
        patch = {}
    if not isinstance(patch, dict):
        raise bad_request(f"json: cannot unmarshal {_json_kind(patch)} into Go value of type map[string]interface {{}}")
    return merge_map(copy.deepcopy(obj), copy.deepcopy(patch), Schema(kind), replace(APPLY, budget=Budget(obj, patch)))


def _json_kind(value: Any) -> str:
    return {"slice": "array", "float64": "number", "map": "object"}.get(go_type(value), go_type(value))


def merge_map(original: dict | None, patch: dict, schema: Schema, options: Options) -> dict:
    """Go's `mergeMap`: `patch` merged into `original` (both are changed)."""
    if DIRECTIVE in patch:
        return _map_directive(patch)
    original = {} if original is None else original
    _retain_keys(original, patch, options)
    _merge_ordered_lists(original, patch, schema, options)
    for key, value in list(patch.items()):
        _merge_key(original, key, value, schema, options)
    return original


def _map_directive(patch: dict) -> dict:
    directive = patch[DIRECTIVE]
    if directive == "replace":
        return {k: v for k, v in patch.items() if k != DIRECTIVE}
    if directive == "delete":
        return {}
    raise malformed(f"unknown patch type: {go_str(directive)} in map: {go_str(patch)}")


def _retain_keys(original: dict, patch: dict, options: Options) -> None:
    """`$retainKeys`: every key the patch sets must be listed; keys of `original` not listed go."""
    if RETAIN_KEYS not in patch:
        return
    keep = patch.pop(RETAIN_KEYS)
    if not options.parallel_lists:
        if RETAIN_KEYS in original and not go_equal(original[RETAIN_KEYS], keep):
            raise malformed(f"{go_str(original[RETAIN_KEYS])} and {go_str(keep)} are not deep equal: "
                            "this may happen when calculating the 3-way diff patch")
        original.setdefault(RETAIN_KEYS, keep)
        return
    if not isinstance(keep, list):
        raise malformed(BAD_RETAIN_KEYS)
    keep = {name for name in keep if isinstance(name, str)}  # map keys are strings: nothing else matches
    for key, value in patch.items():
        if value is not None and not key.startswith((DELETE_FROM, SET_ORDER)) and key not in keep:
            raise malformed(BAD_RETAIN_KEYS)
    for key in [k for k in original if k not in keep]:
        del original[key]


def _merge_key(original: dict, key: str, value: Any, schema: Schema, options: Options) -> None:
    deleting = key.startswith(DELETE_FROM)
    if deleting:
        if not options.parallel_lists:
            original[key] = value
            return
        key = _list_named(key, DELETE_FROM, BAD_PRIMITIVE_LIST)
    if value is None:
        original.pop(key, None)
        if options.ignore_unmatched_nulls:
            return
    if key not in original or go_type(original[key]) != go_type(value):
        if not deleting:
            _take(original, key, value, options)
        return
    if isinstance(value, dict):
        original[key] = merge_map(original[key], value, schema.child(key), options)
    elif isinstance(value, list):
        original[key] = _merge_list_field(original[key], value, schema, key, deleting, options)
    else:
        original[key] = value


def _take(original: dict, key: str, value: Any, options: Options) -> None:
    """A value the object lacks (or holds as another type) is the patch's, without directives."""
    if options.ignore_unmatched_nulls:
        _discard_nulls(value)
    kept, keep = remove_directives(value)
    if keep:
        original[key] = kept
    else:
        original.pop(key, None)


def _discard_nulls(value: Any) -> None:
    if isinstance(value, dict):
        for key in [k for k, v in value.items() if v is None]:
            del value[key]
        for item in value.values():
            _discard_nulls(item)
    elif isinstance(value, list):
        for item in value:
            _discard_nulls(item)


def remove_directives(value: Any) -> tuple[Any, bool]:
    """Go's `removeDirectives`: maps carrying `$patch` go (other `$` keys stay, as in Go)."""
    if isinstance(value, dict):
        if DIRECTIVE in value:
            return None, False
        kept = {k: remove_directives(v) for k, v in value.items()}
        return {k: v for k, (v, keep) in kept.items() if keep}, True
    if isinstance(value, list):
        kept = [remove_directives(item) for item in value]
        return [v for v, keep in kept if keep], True
    return value, True


def _list_named(key: str, prefix: str, error: str) -> str:
    head, slash, name = key.partition("/")
    if not slash or head != prefix:
        raise malformed(error)
    return name


def _merge_list_field(have: list, patch: list, schema: Schema, key: str, deleting: bool,
                      options: Options) -> list:
    """Go's `mergeSliceHandler`: merged if the field's strategy (or a deletion list) says so, else replaced."""
    strategy = schema.strategy(key)
    if strategy.merge or deleting:
        return merge_list(have, patch, schema.child(key), strategy.key, options, deleting)
    return patch


def merge_list(original: list, patch: list, schema: Schema, key: str, options: Options,
               deleting: bool = False) -> list:
    """Go's `mergeSlice`: primitives as a set, maps by merge key; then ordered."""
    if not original and not patch:
        return original
    options.charge(original, patch)
    kind = element_kind(original, patch)
    if kind != "map":
        if options.parallel_lists and deleting:
            gone = {go_key(item) for item in patch}
            return [item for item in original if go_key(item) not in gone]
        merged = dedupe_scalars(original + patch)
    else:
        if not key:
            raise malformed("cannot merge lists without merge key for struct")
        original, patch = _special_items(original, patch, key)
        merged = _merge_items(list(original), patch, key, schema, options)
    inside, outside = partition(merged, patch, key)
    return normalize(inside, outside, patch, original, key, kind)


def _special_items(original: list, patch: list, key: str) -> tuple[list, list]:
    """Apply the items carrying `$patch` (delete by key, replace the list); return the rest. Every
    item is a map (the lists' element kind): the deletions can wait until the patch is read."""
    rest, gone, replace = [], set(), False
    for item in patch:
        if DIRECTIVE not in item:
            rest.append(item)
        elif item[DIRECTIVE] == "delete":
            if key not in item:
                raise no_merge_key(item, key)
            gone.add(go_key(item[key]))
        elif item[DIRECTIVE] == "replace":
            replace = True
        elif item[DIRECTIVE] == "merge":
            raise malformed("merging lists cannot yet be specified in the patch")
        else:
            raise malformed(f"unknown patch type: {go_str(item[DIRECTIVE])} in map: {go_str(item)}")
    if replace:
        return rest, []
    return [item for item in original if key not in item or go_key(item[key]) not in gone], rest


def _merge_items(merged: list, patch: list, key: str, schema: Schema, options: Options) -> list:
    index = MergeIndex(merged, key)
    for item in patch:
        if key not in item:
            raise no_merge_key(item, key)
        found = index.find(item[key])
        if found >= 0:
            merged[found] = merge_map(merged[found], item, schema, options)
            index.replaced(found, merged[found])
        else:
            merged.append(item)
            index.append(item)
    return merged


def _merge_ordered_lists(original: dict, patch: dict, schema: Schema, options: Options) -> None:
    """Go's `mergePatchIntoOriginal`: each `$setElementOrder/<list>` with its list, merged and ordered
    by it (then by the patch, then the live order)."""
    for directive in [k for k in patch if k.startswith(SET_ORDER)]:
        order = patch.pop(directive)
        if not options.parallel_lists:
            if directive in original and not go_equal(original[directive], order):
                raise malformed(BAD_SET_ORDER)
            original.setdefault(directive, order)
        if not isinstance(order, list):
            raise malformed(f"expected a []interface {{}}, but received a {type_name(order)}")
        _merge_ordered_list(original, patch, _list_named(directive, SET_ORDER, BAD_SET_ORDER), order, schema,
                            options)


def _merge_ordered_list(original: dict, patch: dict, name: str, order: list, schema: Schema,
                        options: Options) -> None:
    have, want = _list_or_none(original, name), _list_or_none(patch, name)
    strategy = schema.strategy(name)
    _check_order(want, order, strategy.key)
    if have is None and want is None:
        return
    if want is None:
        merged = have
    elif have is None:
        merged = remove_directives(want)[0]
    else:
        merged = _merge_list_field(have, want, schema, name, False, options)
    options.charge(merged, have)
    inside, outside = partition(merged, order, strategy.key)
    kind = element_kind(have, want)
    original[name] = normalize(inside, outside, order, have or [], strategy.key, kind)
    patch.pop(name, None)


def _list_or_none(holder: dict, name: str) -> list | None:
    if name not in holder:
        return None
    if not isinstance(holder[name], list):
        raise malformed(f"expected a []interface {{}}, but received a {type_name(holder[name])}")
    return holder[name]


def _check_order(patch: list | None, order: list, key: str) -> None:
    """Go's `validatePatchWithSetOrderList`: the patch's items appear in `order`, in its order."""
    if not order or not patch:
        return
    items = split_deletions(patch)[0] if key else patch
    i = j = 0
    while i < len(items) and j < len(order):
        if isinstance(items[i], dict) and DIRECTIVE in items[i]:
            i += 1
            continue
        if _same_item(items[i], order[j], key):
            i += 1
        j += 1
    if i < len(items) and j >= len(order):
        raise malformed(f"The order in patch list:\n{go_str(patch)}\n doesn't match {SET_ORDER} list:\n"
                        f"{go_str(order)}\n")


def _same_item(left: Any, right: Any, key: str) -> bool:
    if not key:
        return go_equal(left, right)
    for item in (left, right):
        if not isinstance(item, dict):
            raise malformed(f"expected a map[string]interface {{}}, but received a {type_name(item)}")
        if key not in item:
            raise no_merge_key(item, key)
    return go_equal(left[key], right[key])
