"""Writes api/k8s_fields.json: the field names of Kubernetes' types (k8s.io/api, as the official
Python client's generated models carry them) for every kind kubus serves, so that
`fieldValidation=Strict` refuses what Kubernetes does not know — and only that: kubus's own models
cover a subset and keep the rest. Run it again when a kind is added: `python scripts/k8s_fields.py`
(needs the `test` extra's `kubernetes` package)."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import kubernetes.client as models

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from api.registry import KINDS  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "api" / "k8s_fields.json"
DESCRIPTIONS = OUT.with_name("k8s_descriptions.json")  # what `kubectl explain` prints of each type and field
SPECIAL = {("Event", "v1"): "CoreV1Event", ("Event", "events.k8s.io/v1"): "EventsV1Event"}
LIST, MAP = re.compile(r"^(?:list|List)\[(.+)\]$"), re.compile(r"^(?:dict\(str, |Dict\[str, )(.+)[)\]]$")


def class_name(kind: str, api_version: str) -> str:
    version = api_version.split("/")[-1]
    return SPECIAL.get((kind, api_version), version[0].upper() + version[1:] + kind)


def ref(type_text: str, types: dict) -> str | None:
    """A field's type as the file writes it: a type name, `[T]`, `{T}`, or None (a scalar, free-form)."""
    if (found := LIST.match(type_text)) and (inner := ref(found.group(1), types)):
        return f"[{inner}]"
    if (found := MAP.match(type_text)) and (inner := ref(found.group(1), types)):
        return "{" + inner + "}"
    cls = getattr(models, type_text, None)
    if cls is None or not hasattr(cls, "openapi_types"):
        return None
    walk(type_text, types)
    return type_text


def walk(name: str, types: dict) -> None:
    if name in types:
        return
    cls = getattr(models, name)
    types[name] = {}
    types[name] = {cls.attribute_map[attr]: ref(text, types) for attr, text in cls.openapi_types.items()}


def main() -> None:
    types: dict = {}
    kinds = {}
    for kind, info in sorted(KINDS.items()):
        kinds[kind] = class_name(kind, info.api_version)
        walk(kinds[kind], types)
    OUT.write_text(json.dumps({"kinds": kinds, "types": types}, sort_keys=True, separators=(",", ":")) + "\n")
    print(f"{OUT}: {len(kinds)} kinds, {len(types)} types")
    described = {name: described_fields(name) for name in sorted(types)}
    DESCRIPTIONS.write_text(json.dumps(described, sort_keys=True, indent=0) + "\n")
    print(f"{DESCRIPTIONS}: {sum(map(len, described.values()))} descriptions")


def described_fields(name: str) -> dict[str, str]:
    """A type's description (under "") and its fields' by their JSON names, as Kubernetes' OpenAPI
    carries them (a field that refers to another type has none in the client's models)."""
    cls = getattr(models, name)
    out = {"": (cls.__doc__ or "").split("\n\n    Attributes:")[0].strip()}
    for attr, info in cls.model_fields.items():
        out[info.serialization_alias or info.alias or attr] = info.description or ""
    return {key: text for key, text in out.items() if text}


if __name__ == "__main__":
    main()
