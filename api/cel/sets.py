"""cel-go's sets extension (`ext/sets.go`, in Kubernetes since 1.29): `sets.contains(a, b)` (every element of
b is in a), `sets.equivalent(a, b)` (each contains the other), `sets.intersects(a, b)` (one in common),
with CEL's equality, where 1, 1u and 1.0 are equal."""
from __future__ import annotations

from typing import Any

from celpy import celtypes

NUMBERS = (celtypes.IntType, celtypes.UintType, celtypes.DoubleType)


def equal(a: Any, b: Any) -> bool:
    """CEL's heterogeneous equality: numbers by value, lists and maps element by element."""
    if isinstance(a, NUMBERS) and isinstance(b, NUMBERS):
        return float(a) == float(b) if isinstance(a, celtypes.DoubleType) or isinstance(b, celtypes.DoubleType) \
            else int(a) == int(b)
    if isinstance(a, celtypes.BoolType) or isinstance(b, celtypes.BoolType):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    try:
        return bool(a == b)
    except TypeError:  # cel-python's values refuse to compare across types: in CEL they are unequal
        return False


def _member(item: Any, items) -> bool:
    return any(equal(item, other) for other in items)


def contains(items, subset):
    return celtypes.BoolType(all(_member(x, items) for x in subset))


def equivalent(a, b):
    return celtypes.BoolType(all(_member(x, a) for x in b) and all(_member(x, b) for x in a))


def intersects(a, b):
    return celtypes.BoolType(any(_member(x, b) for x in a))


FUNCTIONS = {"sets.contains": contains, "sets.equivalent": equivalent, "sets.intersects": intersects}
