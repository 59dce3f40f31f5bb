"""Where the items of a merged list go, as apimachinery's strategicpatch orders them (patch.go
v0.32.4: normalizeElementOrder, mergeSortedSlice, partition*, deduplicateScalars).

Patch items keep the patch's order (or `$setElementOrder`'s), server-only items keep the live
order, and the two are interleaved: a server-only item goes before a patch item only when both
are in the live list and it came first there. So env [A, B] patched with [delete A, C] is [C, B].
"""
from __future__ import annotations

from typing import Any

from api.gojson import go_equal, go_in, go_str, go_type
from api.patch_errors import LIST_OF_LISTS, bad_arg_type, malformed, no_merge_key, unprocessable

DIRECTIVE = "$patch"


def element_kind(*lists: list | None) -> str:
    """Go's `sliceElementType`: the one type of every item (map, string, …); an error if they differ."""
    kinds = [go_type(item) for items in lists for item in items or ()]
    if not kinds:
        raise malformed("no elements in any of the given slices")
    if kinds[0] == "slice":
        raise unprocessable(LIST_OF_LISTS)
    if any(kind != kinds[0] for kind in kinds):
        raise malformed(f"list element types are not identical: {go_str([items or [] for items in lists])}")
    return kinds[0]


def key_value(item: Any, key: str, kind: str) -> Any:
    """What identifies an item: its merge key's value (maps) or itself (primitives)."""
    if kind != "map":
        return item
    return item.get(key) if isinstance(item, dict) else None


def index_of(items: list, item: Any, key: str, kind: str) -> int:
    wanted = key_value(item, key, kind)
    return next((i for i, other in enumerate(items) if go_equal(key_value(other, key, kind), wanted)), -1)


def find_by_key(items: list, key: str, value: Any) -> int:
    """The index of the map whose `key` is `value`, or -1; every item must be a map."""
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise malformed(f"value for key {i} is not a map")
        if key in item and go_equal(item[key], value):
            return i
    return -1


def require_merge_keys(key: str, *lists: list) -> None:
    for items in lists:
        for item in items:
            if not isinstance(item, dict):
                raise bad_arg_type("map[string]interface {}", item)
            if key not in item:
                raise no_merge_key(item, key)


def split_deletions(items: list) -> tuple[list, list]:
    """Go's `extractToDeleteItems`: (items kept, items carrying `$patch: delete`)."""
    require_maps(items)
    deleting = [item for item in items if item.get(DIRECTIVE) == "delete"]
    return [item for item in items if item.get(DIRECTIVE) != "delete"], deleting


def require_maps(items: list) -> None:
    for item in items:
        if not isinstance(item, dict):
            raise bad_arg_type("map[string]interface {}", item)


def sort_by(items: list, order: list, key: str, kind: str) -> list:
    """Go's `normalizeSliceOrder`: a stable sort by place in `order`; deletions go last."""
    deleting: list = []
    if kind == "map":
        require_merge_keys(key, items, order)
        items, deleting = split_deletions(items)
    return _insertion_sort(list(items), lambda a, b: _before(order, a, b, key, kind)) + deleting


def _before(order: list, a: Any, b: Any, key: str, kind: str) -> bool:
    """Go's comparison: by place in `order` when both are there, else "yes" (sic)."""
    ia, ib = index_of(order, a, key, kind), index_of(order, b, key, kind)
    return ia < ib if ia >= 0 and ib >= 0 else True


def _insertion_sort(items: list, less) -> list:
    """sort.SliceStable's insertion sort: the same result as Go's even for its odd comparison."""
    for i in range(1, len(items)):
        j = i
        while j > 0 and less(items[j], items[j - 1]):
            items[j], items[j - 1] = items[j - 1], items[j]
            j -= 1
    return items


def interleave(server_only: list, patch_items: list, live: list, key: str, kind: str) -> list:
    """Go's `mergeSortedSlice`: a server-only item first only if the live list has both and it first."""
    merged, i, j = [], 0, 0
    while i < len(server_only) or j < len(patch_items):
        left_first = j >= len(patch_items) or (
            i < len(server_only) and _earlier(live, server_only[i], patch_items[j], key, kind))
        if left_first:
            merged.append(server_only[i])
            i += 1
        else:
            merged.append(patch_items[j])
            j += 1
    return merged


def _earlier(live: list, left: Any, right: Any, key: str, kind: str) -> bool:
    li, ri = index_of(live, left, key, kind), index_of(live, right, key, kind)
    return li >= 0 and ri >= 0 and li < ri


def normalize(patch_items: list, server_only: list, patch_order: list, live: list, key: str, kind: str) -> list:
    """Go's `normalizeElementOrder`."""
    return interleave(sort_by(server_only, live, key, kind), sort_by(patch_items, patch_order, key, kind),
                      live, key, kind)


def partition(merged: list, by: list, key: str) -> tuple[list, list]:
    """(items of `merged` that `by` names, the others): by merge key, or by value without one."""
    if not key:
        inside = [item for item in merged if go_in(item, by)]
        return inside, [item for item in merged if not go_in(item, by)]
    inside, outside = [], []
    for item in merged:
        if not isinstance(item, dict):
            raise bad_arg_type("map[string]interface {}", item)
        if key not in item:
            raise no_merge_key(item, key)
        (inside if find_by_key(by, key, item[key]) >= 0 else outside).append(item)
    return inside, outside


def dedupe_scalars(values: list) -> list:
    """Go's `deduplicateScalars`, which moves the last item into a duplicate's place."""
    s, i = list(values), 0
    while i < len(s) - 1:
        j = i + 1
        while j <= len(s) - 1:
            if go_equal(s[i], s[j]):
                s[j] = s[-1]
                s.pop()
                j -= 1
            j += 1
        i += 1
    return s
