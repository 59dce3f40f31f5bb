"""cel-go's lists extension, version 3 (`ext/lists.go`, in Kubernetes since 1.34): `slice(start, end)`,
`flatten([depth])`, `distinct()`, `lists.range(n)`, `reverse()`, `sort()`, and the macro `sortBy(e, key)`
(evaluated in `syntax.py`, which calls `sort_by_keys` here). Errors in cel-go's words."""
from __future__ import annotations

from celpy import celtypes
from celpy.evaluation import CELEvalError

from api.cel.sets import NUMBERS, equal


def _error(message: str) -> CELEvalError:
    return CELEvalError(message, ValueError, None)


def slice_(items, start, end):
    start, end = int(start), int(end)
    if start < 0 or end < 0:
        return _error(f"cannot slice({start}, {end}), negative indexes not supported")
    if start > end:
        return _error(f"cannot slice({start}, {end}), start index must be less than or equal to end index")
    if len(items) < end:
        return _error(f"cannot slice({start}, {end}), list is length {len(items)}")
    return celtypes.ListType(items[start:end])


def flatten(items, depth=1):
    if not isinstance(items, celtypes.ListType) or isinstance(depth, (str, CELEvalError)):
        return _error("no such overload")
    if int(depth) < 0:
        return _error("level must be non-negative")
    flat = celtypes.ListType()
    for item in items:
        if isinstance(item, celtypes.ListType) and int(depth) > 0:
            flat.extend(flatten(item, int(depth) - 1))
        else:
            flat.append(item)
    return flat


def distinct(items):
    kept = celtypes.ListType()
    for item in items:
        if not any(equal(item, seen) for seen in kept):
            kept.append(item)
    return kept


def _kind(value) -> type:
    return float if isinstance(value, NUMBERS) else type(value)


def sort_by_keys(items, keys):
    """Sort `items` by their `keys`, as cel-go's `@sortByAssociatedKeys` does (a stable sort)."""
    if len({_kind(k) for k in keys}) > 1:
        return _error("list elements must have the same type")
    try:
        order = sorted(range(len(items)), key=lambda i: keys[i])
    except TypeError:
        return _error("no such overload")
    return celtypes.ListType(items[i] for i in order)


FUNCTIONS = {
    "slice": slice_, "flatten": flatten, "distinct": distinct,
    "lists.range": lambda n: celtypes.ListType(celtypes.IntType(i) for i in range(int(n))),
    "reverse": lambda items: celtypes.ListType(reversed(items)),
    "sort": lambda items: sort_by_keys(items, items),
}
