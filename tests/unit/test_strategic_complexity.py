"""Strategic merge patch's list work in O(n log n) (api/patch/order, api/patch/lookup) gives
byte for byte what the O(n²)–O(n³) port it replaced gave, errors included: the old functions are kept
below as the reference, and random lists, orders and directives go through both."""
from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import example, given, settings, strategies as st

from api.gojson import go_equal, go_key, go_str
from api.patch import strategic, order as strategic_order
from api.patch.apply import apply_patch
from api.patch.errors import bad_arg_type, malformed, no_merge_key
from api.patch.lookup import KeyIndex
from api.patch.mergekeys import Schema
from api.patch.order import DIRECTIVE, element_kind, require_merge_keys, split_deletions
from api.patch.strategic import APPLY, COMBINE, merge_map
from api.status import StatusError


# ---- REFERENCE: the implementation before the walls (main at ba7580a), kept as it was --------------
def go_in(value: Any, items: list) -> bool:  # was api.gojson's
    return any(go_equal(value, item) for item in items)


def ref_key_value(item: Any, key: str, kind: str) -> Any:
    if kind != "map":
        return item
    return item.get(key) if isinstance(item, dict) else None


def ref_index_of(items: list, item: Any, key: str, kind: str) -> int:
    wanted = ref_key_value(item, key, kind)
    return next((i for i, other in enumerate(items) if go_equal(ref_key_value(other, key, kind), wanted)), -1)


def ref_find_by_key(items: list, key: str, value: Any) -> int:
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise malformed(f"value for key {i} is not a map")
        if key in item and go_equal(item[key], value):
            return i
    return -1


def ref_sort_by(items: list, order: list, key: str, kind: str) -> list:
    deleting: list = []
    if kind == "map":
        require_merge_keys(key, items, order)
        items, deleting = split_deletions(items)
    return ref_insertion_sort(list(items), lambda a, b: ref_before(order, a, b, key, kind)) + deleting


def ref_before(order: list, a: Any, b: Any, key: str, kind: str) -> bool:
    ia, ib = ref_index_of(order, a, key, kind), ref_index_of(order, b, key, kind)
    return ia < ib if ia >= 0 and ib >= 0 else True


def ref_insertion_sort(items: list, less) -> list:
    for i in range(1, len(items)):
        j = i
        while j > 0 and less(items[j], items[j - 1]):
            items[j], items[j - 1] = items[j - 1], items[j]
            j -= 1
    return items


def ref_interleave(server_only: list, patch_items: list, live: list, key: str, kind: str) -> list:
    merged, i, j = [], 0, 0
    while i < len(server_only) or j < len(patch_items):
        left_first = j >= len(patch_items) or (
            i < len(server_only) and ref_earlier(live, server_only[i], patch_items[j], key, kind))
        if left_first:
            merged.append(server_only[i])
            i += 1
        else:
            merged.append(patch_items[j])
            j += 1
    return merged


def ref_earlier(live: list, left: Any, right: Any, key: str, kind: str) -> bool:
    li, ri = ref_index_of(live, left, key, kind), ref_index_of(live, right, key, kind)
    return li >= 0 and ri >= 0 and li < ri


def ref_normalize(patch_items: list, server_only: list, patch_order: list, live: list, key: str, kind: str) -> list:
    return ref_interleave(ref_sort_by(server_only, live, key, kind), ref_sort_by(patch_items, patch_order, key, kind),
                          live, key, kind)


def ref_partition(merged: list, by: list, key: str) -> tuple[list, list]:
    if not key:
        inside = [item for item in merged if go_in(item, by)]
        return inside, [item for item in merged if not go_in(item, by)]
    inside, outside = [], []
    for item in merged:
        if not isinstance(item, dict):
            raise bad_arg_type("map[string]interface {}", item)
        if key not in item:
            raise no_merge_key(item, key)
        (inside if ref_find_by_key(by, key, item[key]) >= 0 else outside).append(item)
    return inside, outside


def ref_dedupe_scalars(values: list) -> list:
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


def ref_merge_list(original: list, patch: list, schema: Schema, key: str, options, deleting: bool = False) -> list:
    if not original and not patch:
        return original
    kind = element_kind(original, patch)
    if kind != "map":
        if options.parallel_lists and deleting:
            return [item for item in original if not go_in(item, patch)]
        merged = ref_dedupe_scalars(original + patch)
    else:
        if not key:
            raise malformed("cannot merge lists without merge key for struct")
        original, patch = ref_special_items(original, patch, key)
        merged = ref_merge_items(list(original), patch, key, schema, options)
    inside, outside = ref_partition(merged, patch, key)
    return ref_normalize(inside, outside, patch, original, key, kind)


def ref_special_items(original: list, patch: list, key: str) -> tuple[list, list]:
    rest, replace = [], False
    for item in patch:
        if DIRECTIVE not in item:
            rest.append(item)
        elif item[DIRECTIVE] == "delete":
            if key not in item:
                raise no_merge_key(item, key)
            while (found := ref_find_by_key(original, key, item[key])) >= 0:
                original = original[:found] + original[found + 1:]
        elif item[DIRECTIVE] == "replace":
            replace = True
        elif item[DIRECTIVE] == "merge":
            raise malformed("merging lists cannot yet be specified in the patch")
        else:
            raise malformed(f"unknown patch type: {go_str(item[DIRECTIVE])} in map: {go_str(item)}")
    return (rest, []) if replace else (original, rest)


def ref_merge_items(merged: list, patch: list, key: str, schema: Schema, options) -> list:
    for item in patch:
        if key not in item:
            raise no_merge_key(item, key)
        found = ref_find_by_key(merged, key, item[key])
        if found >= 0:
            merged[found] = merge_map(merged[found], item, schema, options)
        else:
            merged.append(item)
    return merged
# ---- end of REFERENCE --------------------------------------------------------------------------------


def outcome(fn, *args) -> tuple:
    """What `fn` answers to its own deep copy of `args`, as bytes (1 and 1.0 differ, key order counts)."""
    try:
        return "ok", json.dumps(fn(*copy.deepcopy(args)))
    except StatusError as err:
        return "refused", err.to_dict()
    except Exception as err:  # noqa: BLE001 - whatever the old code raised, the new must raise too
        return "raised", type(err).__name__, str(err)


SCALARS = st.one_of(st.sampled_from("abcd"), st.integers(0, 3), st.sampled_from([1.0, 2.0, 0.5]), st.booleans(),
                    st.none())
ODD = st.one_of(st.just(float("nan")), st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from("xy"), inner, max_size=2),
    max_leaves=4))
VALUES = st.one_of(SCALARS, SCALARS, SCALARS, ODD)
NAMES = st.one_of(st.sampled_from("ABCDEF"), st.sampled_from("ABCDEF"), VALUES)
DIRECTIVES = st.sampled_from(["delete", "delete", "replace", "merge", "bogus"])
ITEMS = st.one_of(*[st.fixed_dictionaries({"name": NAMES}, optional={"v": SCALARS})] * 6,
                  st.fixed_dictionaries({}, optional={"name": NAMES, "v": SCALARS, DIRECTIVE: DIRECTIVES}),
                  VALUES)
MAPS = st.lists(ITEMS, max_size=12)
LISTS = st.one_of(MAPS, st.lists(VALUES, max_size=12))
KEYS = st.sampled_from(["name", "name", "name", ""])
KINDS = st.sampled_from(["map", "map", "string", "float64"])
many = settings(max_examples=400, deadline=None)


@many
@given(VALUES, VALUES)
def test_go_key_matches_exactly_what_go_equal_matches(a, b):
    assert (go_key(a) == go_key(b)) == go_equal(a, b)


@many
@given(LISTS, LISTS, KEYS, KINDS)
def test_sort_by_is_the_insertion_sort_it_replaced(items, order, key, kind):
    assert outcome(strategic_order.sort_by, items, order, key, kind) == outcome(ref_sort_by, items, order, key, kind)


@many
@given(st.lists(st.sampled_from("ABCDEFGH"), max_size=30), st.lists(st.sampled_from("ABCDEFGH"), max_size=8))
def test_sort_by_with_most_items_absent_from_the_order(items, order):
    """Items the order lacks take Go's odd comparison ("less") the furthest: the runs they form move."""
    assert outcome(strategic_order.sort_by, items, order, "", "string") == \
        outcome(ref_sort_by, items, order, "", "string")


@many
@given(LISTS, LISTS, LISTS, KEYS, KINDS)
def test_interleave_and_normalize_are_the_same(left, right, live, key, kind):
    assert outcome(strategic_order.interleave, left, right, live, key, kind) == \
        outcome(ref_interleave, left, right, live, key, kind)
    assert outcome(strategic_order.normalize, left, right, live, live, key, kind) == \
        outcome(ref_normalize, left, right, live, live, key, kind)


@many
@given(LISTS, LISTS, KEYS)
def test_partition_is_the_same(merged, by, key):
    assert outcome(strategic_order.partition, merged, by, key) == outcome(ref_partition, merged, by, key)


@many
@given(MAPS, st.lists(NAMES, max_size=6))
def test_key_index_finds_the_first_match_or_the_same_error(items, values):
    assert [outcome(KeyIndex(items, "name").find, value) for value in values] == \
        [outcome(ref_find_by_key, items, "name", value) for value in values]


@many
@given(st.lists(st.one_of(st.sampled_from("abcde"), VALUES), max_size=40))
def test_dedupe_scalars_moves_the_same_items(values):
    assert outcome(strategic_order.dedupe_scalars, values) == outcome(ref_dedupe_scalars, values)


ENV = Schema("Pod", "spec.containers.env")


@many
@given(MAPS, MAPS, st.sampled_from([APPLY, COMBINE]))
@example([{"name": None}], [{"name": None, "v": 1}, {"name": None, "v": 2}], APPLY)  # the merge drops the key
@example([{"name": {"x": None}}, {"name": {}}], [{"name": {"x": None}}, {"name": {"x": None}, "v": 1}], APPLY)
def test_merging_lists_of_maps_is_the_same(original, patch, options):
    """Merged into, an item may lose its merge key (a `null`) or change it: the index follows."""
    assert outcome(strategic.merge_list, original, patch, ENV, "name", options) == \
        outcome(ref_merge_list, original, patch, ENV, "name", options)


@many
@given(st.lists(VALUES, max_size=12), st.lists(VALUES, max_size=12), st.booleans(), st.sampled_from([APPLY, COMBINE]))
def test_merging_and_deleting_primitives_is_the_same(original, patch, deleting, options):
    assert outcome(strategic.merge_list, original, patch, ENV, "", options, deleting) == \
        outcome(ref_merge_list, original, patch, ENV, "", options, deleting)


# ---- the steps one patch may take ---------------------------------------------------------------------
def _pod(env: list, finalizers: list) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "finalizers": finalizers},
            "spec": {"containers": [{"name": "c", "image": "busybox", "env": env}]}}


def test_a_patch_naming_each_item_once_stays_within_the_bound():
    """Every directive on the same lists, each list walked by each: the most a fair patch walks."""
    n = 5_000
    pod = _pod([{"name": f"E{i}", "value": "v"} for i in range(n)], [f"f{i}" for i in range(n)])
    env = [{"name": f"E{i}", "value": "w"} for i in reversed(range(0, n, 2))] + \
        [{"name": f"E{i}", "$patch": "delete"} for i in range(1, n, 2)]
    patch = {"metadata": {"finalizers": [f"g{i}" for i in range(n)], "$setElementOrder/finalizers": [],
                          "$deleteFromPrimitiveList/finalizers": [f"f{i}" for i in range(0, n, 2)]},
             "spec": {"containers": [{"name": "c", "env": env,
                                      "$setElementOrder/env": [{"name": f"E{i}"} for i in reversed(range(0, n, 2))]}]}}
    patched = apply_patch("Pod", pod, patch, "strategic")
    assert [item["name"] for item in patched["spec"]["containers"][0]["env"]] == \
        [f"E{i}" for i in reversed(range(0, n, 2))]
    assert len(patched["metadata"]["finalizers"]) == n + n // 2


def test_a_patch_naming_one_item_again_and_again_is_413():
    """Each naming merges into the same container again, walking its growing env: k²/2 steps."""
    patch = {"spec": {"containers": [{"name": "c", "env": [{"name": f"E{i}"}]} for i in range(1_000)]}}
    with pytest.raises(StatusError) as refused:
        apply_patch("Pod", _pod([], []), patch, "strategic")
    assert (refused.value.reason, refused.value.code) == ("RequestEntityTooLarge", 413)
    assert refused.value.message == ("The allowed maximum list items merged by a strategic merge patch is 18004, "
                                     "got more: a list item named many times is merged again each time")
    few = {"spec": {"containers": [{"name": "c", "env": [{"name": f"E{i}"}]} for i in range(10)]}}
    assert len(apply_patch("Pod", _pod([], []), few, "strategic")["spec"]["containers"][0]["env"]) == 10
