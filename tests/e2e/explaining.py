"""What `kubectl explain` of a kind should answer: the kind's and one field's descriptions as
Kubernetes' OpenAPI carries them, read from the official client's models (not from kubus)."""
from __future__ import annotations

from functools import cache

import kubernetes.client as k8s_models

from api.openapi_describe import FIELDS, k8s_type
from api.openapi_schema import schema_name, schemas as built


def explain_cases(info) -> list[tuple[str, str, str]]:
    """(kind, what to explain, the text its answer holds): the kind and its description, then a
    field of its spec (or its first field) and that field's, from k8s.io/api."""
    k8s = getattr(k8s_models, k8s_type(info.kind))
    top = schemas()[schema_name(info.model.__name__)]["properties"]
    name = "spec" if "spec" in top else next(f for f in top if f not in ("apiVersion", "kind", "metadata"))
    nested, path = top[name], f"{info.plural}.{name}"
    ref = nested.get("$ref") or (nested.get("items") or {}).get("$ref")
    if ref:
        k8s = getattr(k8s_models, FIELDS["types"][k8s.__name__][name].strip("[]{}"))
        inner = schemas()[ref.rsplit("/", 1)[1]]["properties"]
        name = next((f for f in inner if _description(k8s, f)), next(iter(inner)))
        path = f"{path}.{name}"
    return [(info.kind, info.plural, " ".join(k8s_doc(info.kind).split())),
            (info.kind, path, f"FIELD: {name} <") if not _description(k8s, name) else
            (info.kind, path, " ".join(_description(k8s, name).split()))]


def k8s_doc(kind: str) -> str:
    return getattr(k8s_models, k8s_type(kind)).__doc__.split("Attributes:")[0]


def _description(k8s, field: str) -> str:
    return next((f.description or "" for attr, f in k8s.model_fields.items()
                 if (f.serialization_alias or f.alias or attr) == field), "")


@cache
def schemas() -> dict[str, dict]:
    return built()  # (building them takes a quarter of a second: once)
