"""The Table of a custom kind (apiextensions tableconvertor): Name, then the version's
additionalPrinterColumns read by JSONPath (a missing field is an empty cell), or Age when it has none."""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from jsonpath_ng.ext import parse

NAME = {"name": "Name", "type": "string", "format": "name", "priority": 0,
        "description": "Name must be unique within a namespace. Is required when creating resources, although some "
                       "resources may allow a client to request the generation of an appropriate name "
                       "automatically. Name is primarily intended for creation idempotence and configuration "
                       "definition. Cannot be updated. More info: "
                       "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"}
AGE = {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}


@lru_cache(maxsize=256)
def _expression(path: str):
    return parse("$" + path)


def definitions(columns: tuple) -> list[dict]:
    listed = list(columns) or [AGE]
    return [NAME] + [{"name": c["name"], "type": c.get("type", "string"), "format": c.get("format", ""),
                      "description": c.get("description", ""), "priority": c.get("priority", 0)} for c in listed]


def cells(columns: tuple, obj: dict) -> list[Any]:
    return [(obj.get("metadata") or {}).get("name", "")] + [_cell(c, obj) for c in (list(columns) or [AGE])]


def _cell(column: dict, obj: dict) -> Any:
    try:
        found = [m.value for m in _expression(column["jsonPath"]).find(obj)]
    except Exception:  # a path jsonpath-ng cannot read: an empty cell, as a missing field is
        return None
    if not found:
        return None
    value = found[0] if len(found) == 1 else found
    if column.get("type") in ("string", "date") and not isinstance(value, str):
        return json.dumps(value, separators=(",", ":"))
    return value
