"""Kubernetes' descriptions on kubus's OpenAPI schemas, which `kubectl explain` prints: each kind's
schema is paired with its k8s.io/api type (api/k8s_fields.json), and field by field the schemas it
refers to with the types Kubernetes' fields have; the texts are api/k8s_descriptions.json's
(`python scripts/k8s_fields.py` writes both), in place of any a kubus model's docstring gave. A
field kubus models and Kubernetes does not, or one that refers to another type (the client's
models carry no text there), stays undescribed."""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).parent
REF = "#/components/schemas/"


def _load(name: str) -> dict:
    return json.loads((HERE / name).read_text())


FIELDS, TEXTS = _load("k8s_fields.json"), _load("k8s_descriptions.json")


def k8s_type(kind: str) -> str | None:
    """The k8s.io/api type of a kind kubus serves (`V1Deployment`), if the files know it."""
    return FIELDS["kinds"].get(kind)


def describe(components: dict[str, dict], roots: dict[str, str]) -> None:
    """Add the descriptions in place, from `roots` (a kind's schema name -> its k8s type) down."""
    seen: set[str] = set()
    todo = list(roots.items())
    while todo:
        name, k8s = todo.pop()
        if name in seen or name not in components:
            continue
        seen.add(name)
        schema, texts, fields = components[name], TEXTS.get(k8s, {}), FIELDS["types"].get(k8s, {})
        if texts.get(""):
            schema["description"] = texts[""]  # Kubernetes' words, over a kubus model's docstring
        for field, prop in (schema.get("properties") or {}).items():
            if texts.get(field) and "$ref" not in prop:
                prop["description"] = texts[field]
            ref, inner = _ref(prop), (fields.get(field) or "").strip("[]{}")
            if ref and inner:
                todo.append((ref, inner))


def _ref(prop: dict) -> str | None:
    """The schema a property refers to: itself, its items' or its values'."""
    for node in (prop, prop.get("items") or {}, prop.get("additionalProperties") or {}):
        if isinstance(node, dict) and str(node.get("$ref", "")).startswith(REF):
            return node["$ref"][len(REF):]
    return None
