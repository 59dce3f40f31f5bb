"""Where the items of a merged list go, as apimachinery's strategicpatch orders them (patch.go
v0.32.4: normalizeElementOrder, mergeSortedSlice, partition*, deduplicateScalars).

Patch items keep the patch's order (or `$setElementOrder`'s), server-only items keep the live
order, and the two are interleaved: a server-only item goes before a patch item only when both
are in the live list and it came first there. So env [A, B] patched with [delete A, C] is [C, B].

Each step costs O(n log n) in the list's length — places are looked up by hash (api/patch/lookup),
never searched item by item — for the patch is a tenant's input and the apiserver has one mailbox.
"""
from __future__ import annotations

from typing import Hashable

from api.gojson import go_key, go_str, go_type
from api.patch.errors import LIST_OF_LISTS, bad_arg_type, malformed, no_merge_key, unprocessable
from api.patch.lookup import KeyIndex, first_places, item_key

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
    places = first_places(order, key, kind)
    return _as_go_sorts(items, [places.get(item_key(item, key, kind)) for item in items]) + deleting


def _as_go_sorts(items: list, places: list[int | None]) -> list:
    """What sort.SliceStable's insertion sort makes of `items` under Go's comparison — by place in the
    order when both items have one, else "less" (sic) — in O(n log n).

    Items with a place end in a stable sort by place. An item without one moves to the front when its
    turn comes; an item with one moves left past everything until an item whose place is no greater,
    so it lands right behind its predecessor among the items before it, and takes over the run of
    placeless items that stood behind that predecessor (the run at the front, if it has none)."""
    ranked = sorted((i for i, place in enumerate(places) if place is not None), key=places.__getitem__)
    if len(ranked) == len(items):
        return [items[i] for i in ranked]
    before = _earlier_neighbours(ranked)
    front: list[int] = []  # each run is kept in arrival order, and stands reversed in the result
    behind: dict[int, list[int]] = {}
    for i, place in enumerate(places):
        if place is None:
            front.append(i)
        elif before[i] is None:
            behind[i], front = front, []
        else:
            behind[i], behind[before[i]] = behind[before[i]], []
    merged = [items[i] for i in reversed(front)]
    for i in ranked:
        merged.append(items[i])
        merged.extend(items[j] for j in reversed(behind[i]))
    return merged


def _earlier_neighbours(ranked: list[int]) -> dict[int, int | None]:
    """For each index in `ranked`, the nearest one before it in `ranked` among the smaller indices:
    taken from a linked list of `ranked` from which the indices leave, largest first."""
    prev = dict(zip(ranked, [None, *ranked[:-1]]))
    after = dict(zip(ranked, [*ranked[1:], None]))
    found: dict[int, int | None] = {}
    for i in sorted(ranked, reverse=True):
        found[i], following = prev[i], after[i]
        if found[i] is not None:
            after[found[i]] = following
        if following is not None:
            prev[following] = found[i]
    return found


def interleave(server_only: list, patch_items: list, live: list, key: str, kind: str) -> list:
    """Go's `mergeSortedSlice`: a server-only item first only if the live list has both and it first."""
    places = first_places(live, key, kind)
    left = [places.get(item_key(item, key, kind)) for item in server_only]
    right = [places.get(item_key(item, key, kind)) for item in patch_items]
    merged, i, j = [], 0, 0
    while i < len(server_only) or j < len(patch_items):
        if j >= len(patch_items) or (i < len(server_only) and _earlier(left[i], right[j])):
            merged.append(server_only[i])
            i += 1
        else:
            merged.append(patch_items[j])
            j += 1
    return merged


def _earlier(left: int | None, right: int | None) -> bool:
    return left is not None and right is not None and left < right


def normalize(patch_items: list, server_only: list, patch_order: list, live: list, key: str, kind: str) -> list:
    """Go's `normalizeElementOrder`."""
    return interleave(sort_by(server_only, live, key, kind), sort_by(patch_items, patch_order, key, kind),
                      live, key, kind)


def partition(merged: list, by: list, key: str) -> tuple[list, list]:
    """(items of `merged` that `by` names, the others): by merge key, or by value without one."""
    if not key:
        named = {go_key(item) for item in by}
        inside = [go_key(item) in named for item in merged]
        return ([item for item, yes in zip(merged, inside) if yes],
                [item for item, yes in zip(merged, inside) if not yes])
    index, inside, outside = KeyIndex(by, key), [], []
    for item in merged:
        if not isinstance(item, dict):
            raise bad_arg_type("map[string]interface {}", item)
        if key not in item:
            raise no_merge_key(item, key)
        (inside if index.find(item[key]) >= 0 else outside).append(item)
    return inside, outside


def dedupe_scalars(values: list) -> list:
    """Go's `deduplicateScalars`: for each item in turn, every later item equal to it is overwritten by
    the list's last item, which leaves the end (a last item equal to it is dropped and the next one
    taken). Followed value by value — the places of each value kept — in O(n log n), not O(n²)."""
    s, keys = list(values), [go_key(value) for value in values]
    where: dict[Hashable, set[int]] = {}
    for i, key in enumerate(keys):
        where.setdefault(key, set()).add(i)
    i = 0
    while i < len(s) - 1:
        if len(where[keys[i]]) > 1:
            _drop_later(s, keys, where, i)
        i += 1
    return s


def _drop_later(s: list, keys: list, where: dict[Hashable, set[int]], i: int) -> None:
    """One pass of Go's inner loop: the copies of `s[i]` after it go, the last items taking their places."""
    key = keys[i]
    later, where[key] = sorted(p for p in where[key] if p > i), {i}
    for p in later:
        while p < len(s):
            last, moved, moved_key = len(s) - 1, s.pop(), keys.pop()
            if last == p:
                return
            if moved_key != key:
                s[p], keys[p] = moved, moved_key
                where[moved_key].remove(last)
                where[moved_key].add(p)
                break
