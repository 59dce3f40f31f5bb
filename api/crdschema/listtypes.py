"""List topology at run time (AX `schema/listtype/validation.go`): an array with `x-kubernetes-list-type: set`
may not hold one element twice, one with `map` may not hold two items with the same `x-kubernetes-list-map-keys`;
each is a `Duplicate value` at the second appearance, the value printed as Go's field errors print it."""
from __future__ import annotations

import json
from typing import Any

from api.gojson import go_quote
from api.status import Cause

UNSPECIFIED = object()  # an item without the key field, or a null item


def list_causes(obj: dict, schema: dict) -> list[Cause]:
    causes: list[Cause] = []
    _walk(obj, schema, "", causes)
    return causes


def _walk(value: Any, schema: dict | None, path: str, causes: list[Cause]) -> None:
    if not isinstance(schema, dict):
        return
    if isinstance(value, dict):
        properties, extra = schema.get("properties") or {}, schema.get("additionalProperties")
        for key, item in value.items():
            child = properties.get(key, extra if isinstance(extra, dict) else None)
            _walk(item, child, f"{path}.{key}" if path else key, causes)
    elif isinstance(value, list):
        kind = schema.get("x-kubernetes-list-type")
        if kind == "set":
            causes += [Cause(f"{path}[{i}]", f"Duplicate value: {go_value(value[i])}", "FieldValueDuplicate")
                       for i in _repeated(value)]
        elif kind == "map":
            causes += _map_causes(value, schema.get("x-kubernetes-list-map-keys") or [], path)
        for i, item in enumerate(value):
            _walk(item, schema.get("items"), f"{path}[{i}]", causes)


def _map_causes(items: list, keys: list[str], path: str) -> list[Cause]:
    for i, item in enumerate(items):
        if item is not None and not isinstance(item, dict):
            return [Cause(f"{path}[{i}]", f"Invalid value: {go_value(item)}: must be an object for an array of "
                                          "list-type map")]
    found = [{k: item[k] for k in keys if k in item} if isinstance(item, dict) else {} for item in items]
    return [Cause(f"{path}[{i}]", f"Duplicate value: {go_value(found[i])}", "FieldValueDuplicate")
            for i in _repeated(found)]


def _repeated(values: list) -> list[int]:
    """The index of each value's second appearance (once per value)."""
    seen: dict[str, int] = {}
    out = []
    for i, value in enumerate(values):
        key = json.dumps(value, sort_keys=True)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] == 2:
            out.append(i)
    return out


def go_value(value: Any) -> str:
    """A field error's value: strings quoted, simple types plain, anything else Go's `%#v`."""
    if isinstance(value, str):
        return go_quote(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return _sharp(value)


def _sharp(value: Any) -> str:
    if isinstance(value, dict):
        return "map[string]interface {}{" + ", ".join(f"{go_quote(k)}:{_sharp(value[k])}" for k in sorted(value)) + "}"
    if isinstance(value, list):
        return "[]interface {}{" + ", ".join(_sharp(v) for v in value) + "}"
    if value is None:
        return "interface {}(nil)"
    return go_value(value)
