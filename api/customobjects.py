"""A custom object through admission, as the apiextensions apiserver treats it: pruned, defaulted from
its schema, then validated against it; its type fields must name the endpoint's kind and version."""
from __future__ import annotations

import copy

from api.crdschema.defaulting import default
from api.crdschema import rules
from api.crdschema.listtypes import list_causes
from api.crdschema.pruning import prune
from api.crdschema.validation import validate
from api.customkinds import CustomKind
from api.fieldselectors import FieldSelector
from api.status import Cause, StatusError, bad_request


def prepare(info: CustomKind, obj: dict, schema: dict) -> list[str]:
    """Prune and default in place by the schema of the version sent; the unknown fields dropped."""
    if info.status_subresource and obj.get("status") is None:
        obj.pop("status", None)
    dropped = prune(obj, schema)
    default(obj, schema)
    return dropped


def causes(info: CustomKind, obj: dict, old: dict | None = None) -> list[Cause]:
    """Schema errors (the schema of the version the object was sent in); then, where the schema holds, its
    x-kubernetes-validations rules (transition rules see the stored object)."""
    schema = info.schema_for(obj.get("apiVersion"))
    found = validate(obj, schema) + list_causes(obj, schema)
    return found or rules.object_causes(obj, old, schema)


def unknown_fields(info: CustomKind, body: dict) -> list[str]:
    """`unknown field "spec.x"` for each field pruning would drop from a body sent (fieldValidation)."""
    if not isinstance(body, dict):
        return []
    return [f'unknown field "{path}"' for path in prune(copy.deepcopy(body), info.schema_for(body.get("apiVersion")))]


def status_causes(full_schema: dict, obj: dict) -> list[Cause]:
    """A /status write: only `status` is checked (and pruned and defaulted first)."""
    schema = (full_schema.get("properties") or {}).get("status")
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


def check_fields(info: CustomKind, selector: FieldSelector) -> None:
    """A custom kind is selected by `metadata.name`, `metadata.namespace` (namespaced) and the storage version's
    `selectableFields`; any other field is a 400, as the apiextensions apiserver answers."""
    allowed = {"metadata.name", *(("metadata.namespace",) if info.namespaced else ()), *info.selectable}
    for term in selector.terms:
        label = ".".join(term.path)
        if label not in allowed:
            raise bad_request(f"field label not supported: {label}")
