"""The schema of a CRD version checked as Kubernetes does on a CRD write: forbidden keywords, types,
the structural rules (every node typed, junctors without types), root metadata, the extensions."""
from __future__ import annotations

from api.gojson import go_quote
from api.status import Cause

TYPES = ("array", "boolean", "integer", "number", "object", "string")
UNSUPPORTED = ("id", "additionalItems", "patternProperties", "definitions", "dependencies", "$ref")
JUNCTORS = ("allOf", "anyOf", "oneOf", "not")
ROOT_WITH_STATUS = {"description", "type", "properties", "required", "x-kubernetes-preserve-unknown-fields",
                    "x-kubernetes-validations", "title", "externalDocs"}


def schema_causes(schema, path: str, status_enabled: bool = False) -> list[Cause]:
    if not isinstance(schema, dict):
        return [Cause(path, "Invalid value: must be an object")]
    causes = []
    if status_enabled:
        if schema.get("type") not in (None, "object"):
            causes.append(Cause(f"{path}.type", f'Invalid value: {go_quote(str(schema["type"]))}: only "object" is '
                                                f'allowed as the type at the root of the schema if the status '
                                                f'subresource is enabled'))
        extra = set(schema) - ROOT_WITH_STATUS
        if extra:
            causes.append(Cause(path, "Invalid value: ...: only [Description Type Properties Required "
                                      "XPreserveUnknownFields XValidations] fields are allowed at the root of "
                                      "the schema if the status subresource is enabled"))
    if schema.get("nullable"):
        causes.append(Cause(f"{path}.nullable", "Forbidden: nullable cannot be true at the root",
                            "FieldValueForbidden"))
    if "type" not in schema and not _untyped_ok(schema):
        causes.append(Cause(f"{path}.type", "Required value: must not be empty at the root", "FieldValueRequired"))
    elif schema.get("type") not in (None, "object"):
        causes.append(Cause(f"{path}.type", "Invalid value: " + go_quote(str(schema["type"])) +
                            ": must be object at the root"))
    if "additionalProperties" in schema:
        causes.append(Cause(f"{path}.additionalProperties", "Forbidden: must not be used at the root",
                            "FieldValueForbidden"))
    causes += _root_metadata((schema.get("properties") or {}).get("metadata"), f"{path}.properties[metadata]")
    causes += _node(schema, path)
    return causes


def _untyped_ok(node: dict) -> bool:
    return bool(node.get("x-kubernetes-int-or-string") or node.get("x-kubernetes-preserve-unknown-fields"))


def _root_metadata(meta, path: str) -> list[Cause]:
    if not isinstance(meta, dict):
        return []
    if set(meta) - {"type", "properties", "description"} or \
            set(meta.get("properties") or {}) - {"name", "generateName"}:
        return [Cause(path, "Forbidden: must not specify anything other than name and generateName, but metadata "
                            "is implicitly specified", "FieldValueForbidden")]
    return []


def _node(node: dict, path: str) -> list[Cause]:
    causes = _keywords(node, path)
    kind = node.get("type")
    if kind is not None and kind not in TYPES:
        if kind == "null":
            causes.append(Cause(f"{path}.type", "Forbidden: type cannot be set to null, use nullable as an "
                                                "alternative", "FieldValueForbidden"))
        else:
            causes.append(Cause(f"{path}.type", f"Unsupported value: {go_quote(str(kind))}: supported values: "
                                + ", ".join(go_quote(t) for t in TYPES), "FieldValueNotSupported"))
    causes += _extensions(node, path)
    properties = node.get("properties") or {}
    if properties and isinstance(node.get("additionalProperties"), dict):
        causes.append(Cause(f"{path}.additionalProperties", "Forbidden: additionalProperties and properties are "
                                                            "mutual exclusive", "FieldValueForbidden"))
    for name, child in properties.items():
        child_path = f"{path}.properties[{name}]"
        causes += _child(child, child_path, "must not be empty for specified object fields")
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        causes += _child(extra, f"{path}.additionalProperties", "must not be empty for specified object fields")
    items = node.get("items")
    if kind == "array" and items is None:
        causes.append(Cause(f"{path}.items", "Required value: must be specified", "FieldValueRequired"))
    elif isinstance(items, list):
        causes.append(Cause(f"{path}.items", "Forbidden: items must be a schema object and not an array",
                            "FieldValueForbidden"))
    elif isinstance(items, dict):
        causes += _child(items, f"{path}.items", "must not be empty for specified array items")
    for junctor in JUNCTORS:
        causes += _junctor(node.get(junctor), f"{path}.{junctor}")
    return causes


def _child(child, path: str, untyped: str) -> list[Cause]:
    if not isinstance(child, dict):
        return [Cause(path, "Invalid value: must be a schema object")]
    causes = []
    if "type" not in child and not _untyped_ok(child):
        causes.append(Cause(f"{path}.type", f"Required value: {untyped}", "FieldValueRequired"))
    return causes + _node(child, path)


def _keywords(node: dict, path: str) -> list[Cause]:
    causes = [Cause(f"{path}.{kw}", f"Forbidden: {kw} is not supported", "FieldValueForbidden")
              for kw in UNSUPPORTED if kw in node]
    if node.get("uniqueItems") is True:
        causes.append(Cause(f"{path}.uniqueItems", "Forbidden: uniqueItems cannot be set to true since the runtime "
                                                   "complexity becomes quadratic", "FieldValueForbidden"))
    return causes


def _extensions(node: dict, path: str) -> list[Cause]:
    causes = []
    if node.get("x-kubernetes-preserve-unknown-fields") is False:
        causes.append(Cause(f"{path}.x-kubernetes-preserve-unknown-fields", "Invalid value: false: must be true or "
                                                                            "undefined"))
    if node.get("x-kubernetes-int-or-string"):
        for ext in ("x-kubernetes-preserve-unknown-fields", "x-kubernetes-embedded-resource"):
            if node.get(ext):
                causes.append(Cause(f"{path}.{ext}", "Invalid value: true: must be false if "
                                                     "x-kubernetes-int-or-string is true"))
    if node.get("x-kubernetes-embedded-resource") and node.get("type") != "object":
        causes.append(Cause(f"{path}.type", f"Invalid value: {go_quote(str(node.get('type') or ''))}: must be "
                                            f"object if x-kubernetes-embedded-resource is true"))
    return causes


def _junctor(value, path: str) -> list[Cause]:
    if value is None:
        return []
    branches = [value] if isinstance(value, dict) else list(value) if isinstance(value, list) else []
    causes = []
    for i, branch in enumerate(branches):
        here = path if isinstance(value, dict) else f"{path}[{i}]"
        if not isinstance(branch, dict):
            continue
        for field in ("type", "title", "description"):
            if branch.get(field):
                causes.append(Cause(f"{here}.{field}", "Forbidden: must be empty to be structural",
                                    "FieldValueForbidden"))
        for field in ("additionalProperties", "default"):
            if field in branch:
                causes.append(Cause(f"{here}.{field}", "Forbidden: must be undefined to be structural",
                                    "FieldValueForbidden"))
        if branch.get("nullable"):
            causes.append(Cause(f"{here}.nullable", "Forbidden: must be false to be structural",
                                "FieldValueForbidden"))
        causes += _keywords(branch, here)
    return causes
