"""An object's fields as a set of paths, and the changes between two objects, as structured-merge-diff
computes them (`ToFieldSet` and `Compare`): a scalar, an atomic list or map, an empty or null value is a
member; so is each item of a keyed list or set (its `.`); a map's fields are members only through their
leaves. Comparing, a map or item that appears or disappears is added or removed itself, with all below
it (a list only through its items)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from api.managedfields import paths
from api.managedfields.paths import FieldSet, Path

_ABSENT = object()


def items(values: list, shape) -> list[tuple[str, Any]] | None:
    """A granular list's items by their path element; None when the list is atomic (or cannot be keyed:
    an item without its key fields, a duplicate — structured-merge-diff refuses those; kubus owns the
    list whole)."""
    list_type = shape.list_type()
    if list_type.kind == "atomic":
        return None
    out, seen = [], set()
    for item in values:
        if list_type.kind == "map":
            if not isinstance(item, dict) or not any(k in item for k in list_type.keys):
                return None
            element = paths.key(item, list_type.keys)
        else:
            if isinstance(item, (dict, list)):
                return None
            element = paths.value(item)
        if element in seen:
            return None
        seen.add(element)
        out.append((element, item))
    return out


def of(obj: Any, shape) -> FieldSet:
    """The fields `obj` sets (what an applier owns)."""
    out: FieldSet = set()
    _walk(obj, shape, (), out)
    return out


def _walk(value: Any, shape, path: Path, out: FieldSet) -> None:
    if isinstance(value, dict) and value and not shape.atomic_map():
        for name, child in value.items():
            _walk(child, shape.child(name), path + (paths.field(name),), out)
    elif isinstance(value, list) and (listed := items(value, shape)) is not None:
        for element, item in listed:
            out.add(path + (element,))
            _walk(item, shape.item(), path + (element,), out)
    else:
        out.add(path)


@dataclass
class Comparison:
    added: FieldSet = field(default_factory=set)
    modified: FieldSet = field(default_factory=set)
    removed: FieldSet = field(default_factory=set)

    @property
    def changed(self) -> FieldSet:
        return self.added | self.modified

    def empty(self) -> bool:
        return not (self.added or self.modified or self.removed)


def compare(old: Any, new: Any, shape) -> Comparison:
    """What changed from `old` to `new`."""
    result = Comparison()
    _compare(old, new, shape, (), result)
    return result


def compare_maps(old: dict, new: dict, shape, skip: frozenset, inner: dict[str, frozenset]) -> Comparison:
    """What `compare` finds between copies of two maps without the fields `skip` names, and without the
    fields `inner` names in their maps by those names (when both are maps) — without making the copies:
    the store compares each write's owned part of the stored object and the new one."""
    result = Comparison()
    _compare_maps(old, new, shape, (), result, skip, inner)
    return result


def _compare(old: Any, new: Any, shape, path: Path, out: Comparison) -> None:
    if old == new:  # most of an update is unchanged: compared at C speed, not walked
        return
    if _granular_map(old, shape) and _granular_map(new, shape):
        _compare_maps(old, new, shape, path, out)
    elif (pair := _granular_lists(old, new, shape)) is not None:
        _compare_items(*pair, shape, path, out)
    elif old is _ABSENT:
        out.added.add(path)
    elif new is _ABSENT:
        out.removed.add(path)
    else:
        out.modified.add(path)


def _granular_map(value: Any, shape) -> bool:
    return value is _ABSENT or (isinstance(value, dict) and not shape.atomic_map())


def _compare_maps(old: Any, new: Any, shape, path: Path, out: Comparison, skip: frozenset = frozenset(),
                  inner: dict[str, frozenset] | None = None) -> None:
    if old is _ABSENT or new is _ABSENT:  # a map that appears or disappears is a change itself, as is all below
        (out.added if old is _ABSENT else out.removed).add(path)
        old, new = old if old is not _ABSENT else {}, new if new is not _ABSENT else {}
    kept = 0  # the old fields the new map has: when they are all of its fields, none was added
    for name, before in old.items():  # an equal field (most of them) costs a lookup and a comparison
        after = new.get(name, _ABSENT)
        if after is not _ABSENT:
            kept += 1
        if name not in skip and before is not after and before != after:
            if inner and name in inner and isinstance(before, dict) and isinstance(after, dict):
                _compare_maps(before, after, shape.child(name), path + (paths.field(name),), out, inner[name])
            else:
                _compare(before, after, shape.child(name), path + (paths.field(name),), out)
    for name in new.keys() - old.keys() - skip if kept < len(new) else ():
        _compare(_ABSENT, new[name], shape.child(name), path + (paths.field(name),), out)


def _granular_lists(old: Any, new: Any, shape):
    pair = []
    for value in (old, new):
        if value is _ABSENT:
            pair.append(None)
        elif not isinstance(value, list) or (listed := items(value, shape)) is None:
            return None
        else:
            pair.append(dict(listed))
    return None if pair == [None, None] else pair


def _compare_items(old: dict | None, new: dict | None, shape, path: Path, out: Comparison) -> None:
    old, new = old or {}, new or {}
    for element in old.keys() | new.keys():
        _compare(old.get(element, _ABSENT), new.get(element, _ABSENT), shape.item(), path + (element,), out)
