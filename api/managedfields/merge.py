"""The applied configuration merged into the live object by its structure (structured-merge-diff's
`Merge`): maps field by field, keyed lists and sets item by item (live items keep their places, new ones
follow in the configuration's order), atomic lists and maps and scalars replaced; a null in the
configuration removes the field. And `remove`: fields taken out of an object by their paths, with the
maps and lists they leave empty."""
from __future__ import annotations

import copy
from typing import Any

from api.managedfields.fieldset import items
from api.managedfields.paths import FieldSet, Path


def merge(live: Any, config: Any, shape) -> Any:
    if isinstance(live, dict) and isinstance(config, dict) and not shape.atomic_map():
        out = dict(live)
        for name, value in config.items():
            if value is None:
                out.pop(name, None)
            else:
                out[name] = merge(live.get(name), value, shape.child(name))
        return out
    if isinstance(live, list) and isinstance(config, list):
        old, new = items(live, shape), items(config, shape)
        if old is not None and new is not None:
            return _merge_items(old, new, shape)
    return copy.deepcopy(config)


def _merge_items(old: list, new: list, shape) -> list:
    applied = dict(new)
    out = [merge(item, applied.pop(element), shape.item()) if element in applied else item for element, item in old]
    return out + [copy.deepcopy(item) for element, item in new if element in applied]


def remove(obj: dict, gone: FieldSet, shape) -> dict:
    """A copy of `obj` without the fields at `gone`."""
    out = copy.deepcopy(obj)
    for path in sorted(gone, key=len, reverse=True):
        _remove(out, path, shape)
    return out


def _remove(node: Any, path: Path, shape) -> bool:
    """Remove `path` under `node`; whether `node` was left empty by it."""
    element, rest = path[0], path[1:]
    if isinstance(node, dict) and element.startswith("f:"):
        name = element[2:]
        if name not in node:
            return False
        if not rest or _remove(node[name], rest, shape.child(name)):
            del node[name]
        return not node
    if isinstance(node, list):
        listed = items(node, shape) or []
        for i, (found, item) in enumerate(listed):
            if found == element:
                if not rest or _remove(item, rest, shape.item()):
                    del node[i]
                return not node
    return False
