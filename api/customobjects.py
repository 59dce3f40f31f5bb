"""A custom object through admission, as the apiextensions apiserver treats it: pruned, defaulted from
its schema, then validated against it; its type fields must name the endpoint's kind and version."""
from __future__ import annotations

from api.crdschema.defaulting import default
from api.crdschema import rules
from api.crdschema.pruning import prune
from api.crdschema.validation import validate
from api.customkinds import CustomKind
from api.status import Cause, StatusError


def prepare(info: CustomKind, obj: dict) -> list[str]:
    """Prune and default in place; the unknown fields dropped (fieldValidation's warnings)."""
    if info.status_subresource and obj.get("status") is None:
        obj.pop("status", None)
    dropped = prune(obj, info.schema)
    default(obj, info.schema)
    return dropped


def causes(info: CustomKind, obj: dict, old: dict | None = None) -> list[Cause]:
    """Schema errors; then, where the schema holds, its x-kubernetes-validations rules."""
    found = validate(obj, info.schema)
    return found or rules.object_causes(obj, old, info.schema)


def status_causes(info: CustomKind, obj: dict) -> list[Cause]:
    """A /status write: only `status` is checked (and pruned and defaulted first)."""
    schema = (info.schema.get("properties") or {}).get("status")
    if not isinstance(schema, dict) or "status" not in obj:
        return []
    wrapper = {"type": "object", "properties": {"status": schema}}
    status = {"status": obj["status"]}
    prune(status, wrapper)
    default(status, wrapper)
    obj["status"] = status.get("status")
    return validate(status, wrapper)


def refuse_while_terminating(info: CustomKind) -> None:
    if info.terminating:
        raise StatusError("Forbidden", "create not allowed while custom resource definition is terminating",
                          details={"group": info.group, "kind": info.plural})
