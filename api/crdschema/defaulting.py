"""Defaulting from the schema's `default` (apiextensions schema/defaulting): a missing property, or an
explicit null on a non-nullable one, takes its default; through properties, map values and items. A
non-nullable null without a default is dropped."""
from __future__ import annotations

import copy
from typing import Any


def default(value: Any, schema: dict | None) -> None:
    """Fill defaults into `value` in place."""
    if not isinstance(schema, dict):
        return
    if isinstance(value, dict):
        _object(value, schema)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for item in value:
            default(item, schema["items"])


def _object(obj: dict, schema: dict) -> None:
    for name, child in (schema.get("properties") or {}).items():
        if not isinstance(child, dict):
            continue
        if name not in obj or (obj[name] is None and not child.get("nullable")):
            if "default" in child:
                obj[name] = copy.deepcopy(child["default"])
            elif name in obj:
                del obj[name]
                continue
            else:
                continue
        default(obj[name], child)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        for name in [n for n in obj if n not in (schema.get("properties") or {})]:
            default(obj[name], extra)
