"""A custom object checked against its version's openAPIV3Schema, in kube-openapi's words as Kubernetes
turns them into field errors (`spec.replicas: Invalid value: "string": spec.replicas in body must be of
type integer: "string"`)."""
from __future__ import annotations

import re
from typing import Any

from api.gojson import go_json, go_quote
from api.status import Cause

FORMATS = {
    "uuid": re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I),
    "date": re.compile(r"^\d{4}-\d{2}-\d{2}$"),
    "date-time": re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$"),
    "ipv4": re.compile(r"^((25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(25[0-5]|2[0-4]\d|1?\d?\d)$"),
    "email": re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$"),
    "byte": re.compile(r"^[A-Za-z0-9+/]*={0,2}$"),
}
FORMAT_NAMES = {"date-time": "date-time"}


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def shown(value: Any) -> str:
    """A value as a Kubernetes field error prints it."""
    if isinstance(value, str):
        return go_quote(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
    return "null" if value is None else go_json(value)


def validate(obj: dict, schema: dict) -> list[Cause]:
    """Causes for the object's fields besides apiVersion, kind and metadata (checked elsewhere)."""
    causes: list[Cause] = []
    body = {k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}
    root = {**schema, "properties": {k: v for k, v in (schema.get("properties") or {}).items()
                                     if k not in ("apiVersion", "kind", "metadata")}}
    _object(body, root, "", causes)
    return causes


def _check(value: Any, schema: dict, path: str, causes: list[Cause]) -> None:
    if value is None:
        if not schema.get("nullable"):
            kind = schema.get("type")
            if kind:
                causes.append(_type_error(path, kind, "null"))
        return
    if schema.get("x-kubernetes-int-or-string"):
        if json_type(value) not in ("integer", "string"):
            causes.append(_type_error(path, "integer-or-string", json_type(value)))
            return
    elif not _type_ok(value, schema.get("type")):
        causes.append(_type_error(path, schema["type"], json_type(value)))
        return
    if "enum" in schema and value not in schema["enum"]:
        causes.append(Cause(path, f"Unsupported value: {shown(value)}: supported values: "
                                  + ", ".join(shown(v) for v in schema["enum"]), "FieldValueNotSupported"))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        _number(value, schema, path, causes)
    elif isinstance(value, str):
        _string(value, schema, path, causes)
    elif isinstance(value, list):
        _array(value, schema, path, causes)
    elif isinstance(value, dict):
        _object(value, schema, path, causes)


def _type_ok(value: Any, kind: str | None) -> bool:
    actual = json_type(value)
    if kind is None or kind == actual:
        return True
    return kind == "number" and actual == "integer" or \
        kind == "integer" and isinstance(value, float) and value.is_integer()


def _type_error(path: str, kind: str, actual: str) -> Cause:
    return Cause(path, f'Invalid value: "{actual}": {path} in body must be of type {kind}: "{actual}"')


def _bad(path: str, value: Any, text: str) -> Cause:
    return Cause(path, f"Invalid value: {shown(value)}: {path} in body {text}")


def _number(value: float, schema: dict, path: str, causes: list[Cause]) -> None:
    if "maximum" in schema:
        limit, exclusive = schema["maximum"], schema.get("exclusiveMaximum")
        if value > limit or exclusive and value == limit:
            causes.append(_bad(path, value, f"should be less than {'' if exclusive else 'or equal to '}"
                                            f"{shown(limit)}"))
    if "minimum" in schema:
        limit, exclusive = schema["minimum"], schema.get("exclusiveMinimum")
        if value < limit or exclusive and value == limit:
            causes.append(_bad(path, value, f"should be greater than {'' if exclusive else 'or equal to '}"
                                            f"{shown(limit)}"))
    if schema.get("multipleOf") and (value / schema["multipleOf"]) % 1:
        causes.append(_bad(path, value, f"should be a multiple of {shown(schema['multipleOf'])}"))


def _string(value: str, schema: dict, path: str, causes: list[Cause]) -> None:
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        causes.append(Cause(path, f"Too long: may not be more than {schema['maxLength']} bytes", "FieldValueTooLong"))
    if "minLength" in schema and len(value) < schema["minLength"]:
        causes.append(_bad(path, value, f"should be at least {schema['minLength']} chars long"))
    if "pattern" in schema and not re.search(schema["pattern"], value):
        causes.append(_bad(path, value, f"should match '{schema['pattern']}'"))
    check = FORMATS.get(schema.get("format") or "")
    if check is not None and not check.match(value):
        causes.append(_bad(path, value, f"must be of type {schema['format'].replace('-', '')}: {go_quote(value)}"))


def _array(value: list, schema: dict, path: str, causes: list[Cause]) -> None:
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        causes.append(Cause(path, f"Too many: {len(value)}: must have at most {schema['maxItems']} items",
                            "FieldValueTooMany"))
    if "minItems" in schema and len(value) < schema["minItems"]:
        causes.append(_bad(path, value, f"should have at least {schema['minItems']} items"))
    items = schema.get("items")
    if isinstance(items, dict):
        for i, item in enumerate(value):
            _check(item, items, f"{path}[{i}]", causes)


def _object(value: dict, schema: dict, path: str, causes: list[Cause]) -> None:
    prefix = f"{path}." if path else ""
    for name in schema.get("required") or []:
        if name not in value:
            causes.append(Cause(f"{prefix}{name}", "Required value", "FieldValueRequired"))
    if "maxProperties" in schema and len(value) > schema["maxProperties"]:
        causes.append(Cause(path, f"Too many: {len(value)}: must have at most {schema['maxProperties']} items",
                            "FieldValueTooMany"))
    if "minProperties" in schema and len(value) < schema["minProperties"]:
        causes.append(_bad(path, value, f"should have at least {schema['minProperties']} properties"))
    if schema.get("x-kubernetes-embedded-resource"):
        causes += [Cause(f"{prefix}{field}", "Required value: must not be empty", "FieldValueRequired")
                   for field in ("apiVersion", "kind") if not value.get(field)]
    properties, extra = schema.get("properties") or {}, schema.get("additionalProperties")
    for name, child in value.items():
        if name in properties:
            _check(child, properties[name], f"{prefix}{name}", causes)
        elif isinstance(extra, dict):
            _check(child, extra, f"{prefix}{name}", causes)
