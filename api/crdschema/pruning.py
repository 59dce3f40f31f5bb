"""Pruning (apiextensions schema/pruning): what the schema does not declare goes, except below
`x-kubernetes-preserve-unknown-fields`; at the root and in embedded resources `apiVersion`, `kind` and
`metadata` stay (metadata keeps only ObjectMeta's fields)."""
from __future__ import annotations

from typing import Any

from api.meta import ObjectMeta

META_FIELDS = frozenset(ObjectMeta.model_fields) | {"managedFields", "selfLink"}
TYPE_FIELDS = ("apiVersion", "kind", "metadata")


def prune(obj: dict, schema: dict) -> list[str]:
    """Drop `obj`'s undeclared fields in place; the paths dropped, for `unknown field` warnings."""
    dropped: list[str] = []
    _object(obj, schema, "", dropped, root=True)
    return dropped


def _value(value: Any, schema: dict | None, path: str, dropped: list[str]) -> None:
    if schema is None:
        return
    if isinstance(value, dict):
        _object(value, schema, path, dropped, root=bool(schema.get("x-kubernetes-embedded-resource")))
    elif isinstance(value, list):
        items = schema.get("items")
        if isinstance(items, dict):
            for i, item in enumerate(value):
                _value(item, items, f"{path}[{i}]", dropped)


def _object(obj: dict, schema: dict, path: str, dropped: list[str], root: bool = False) -> None:
    properties = schema.get("properties") or {}
    extra = schema.get("additionalProperties")
    preserve = bool(schema.get("x-kubernetes-preserve-unknown-fields"))
    for key in list(obj):
        child_path = f"{path}.{key}" if path else key
        if root and key in TYPE_FIELDS:
            if key == "metadata" and isinstance(obj[key], dict):
                for field in [f for f in obj[key] if f not in META_FIELDS]:
                    del obj[key][field]
                    dropped.append(f"{child_path}.{field}")
            continue
        if key in properties:
            _value(obj[key], properties[key], child_path, dropped)
        elif isinstance(extra, dict):
            _value(obj[key], extra, child_path, dropped)
        elif extra is True or preserve:
            continue
        else:
            del obj[key]
            dropped.append(child_path)
