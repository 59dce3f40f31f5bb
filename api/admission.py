"""Admission of one object: parse with its model, apply defaults, validate; errors as Invalid causes."""
from __future__ import annotations

from functools import cache
from typing import Any, Callable

from pydantic import TypeAdapter, ValidationError

from api import customobjects, defaults, validation
from api.causes import causes_of
from api.customkinds import CustomKind
from api.errors import invalid
from api.managedfields import raw
from api.qos import qos_class
from api.registry import KindInfo, lookup
from api.status import Cause, bad_request

# ObjectMeta's maps and lists that Go writes `omitempty`: one sent empty is not stored (an
# `annotations: {}` in a patch leaves none, as a Kubernetes round trip through its types does)
OMIT_EMPTY = ("labels", "annotations", "ownerReferences", "finalizers")


def _parse(info: KindInfo, obj: dict) -> dict:
    try:
        parsed = info.model.model_validate(obj).to_dict()
    except ValidationError as exc:
        meta = obj["metadata"]
        causes = _meta_causes(info, meta) + causes_of(exc.errors(), model=info.model)
        raise invalid(info.kind, meta.get("name") or meta.get("generateName") or "", causes) from None
    meta = parsed["metadata"]
    for key in OMIT_EMPTY:
        if key in meta and not meta[key]:
            del meta[key]
    return parsed


def _meta_causes(info: KindInfo, meta: dict) -> list[Cause]:
    try:
        return validation.metadata(info, meta)
    except (TypeError, AttributeError):  # malformed metadata: the model's errors say why
        return []


def _check_type(info: KindInfo, obj: dict) -> None:
    kind, version = obj.get("kind"), obj.get("apiVersion")
    if kind is not None and kind != info.kind:
        raise bad_request(f"the object's kind {kind!r} does not match the request's kind {info.kind!r}")
    if isinstance(info, CustomKind) and info.served_as(version):
        return  # conversion None: any served version, stored as the storage version
    if version is not None and version != info.api_version:
        raise bad_request(f"no kind {info.kind!r} is registered for version {version!r}, "
                          f"expected {info.api_version!r}")


def admit(kind: str, obj: Any, namespace: str | None = None,
          mutate: Callable[[dict], dict] | None = None, old: dict | None = None) -> dict:
    """The object as it will be stored, or StatusError (Invalid 422 with field causes, BadRequest 400).
    `mutate` (mutating admission) changes the defaulted object before it is validated."""
    parsed = decode(kind, obj, namespace)
    if mutate is not None:
        parsed = mutate(parsed)
    return checked(kind, parsed, old)


def decode(kind: str, obj: Any, namespace: str | None = None) -> dict:
    """The object parsed with its model and defaulted (what mutating admission sees, and what a
    webhook's patched object goes through again), or StatusError."""
    info = lookup(kind)
    if not isinstance(obj, dict):
        raise bad_request(f"the request carries no {info.kind} object")
    _check_type(info, obj)
    meta = obj.get("metadata") or {}
    if not isinstance(meta, dict):
        raise invalid(info.kind, "", [Cause("metadata", "Invalid value: must be an object")])
    meta = dict(meta)
    obj = {**obj, "metadata": meta}  # the model's dump below is a new object: the input stays untouched
    if info.namespaced:
        if namespace and meta.get("namespace") not in (None, namespace):
            raise bad_request(f"the namespace of the provided object ({meta['namespace']}) does not match the "
                              f"namespace sent on the request ({namespace})")
        meta.setdefault("namespace", namespace or "default")
    managed = meta.pop("managedFields", None)  # kept out of the model's parse, each fieldsV1 as its text
    parsed = _parse(info, obj)
    if managed is not None:
        parsed.setdefault("metadata", {})["managedFields"] = raw.packed(managed)
    schema = info.schema_for(obj.get("apiVersion")) if isinstance(info, CustomKind) else None
    if schema is not None:
        customobjects.prepare(info, parsed, schema)
    else:
        defaults.apply(info.kind, parsed)
    return parsed


def prepare_for_create(kind: str, obj: dict) -> None:
    """What a kind's strategy sets on a new object whatever it was sent with, after mutating
    admission: a Pod's status is Pending with its QoS class (podStrategy.PrepareForCreate)."""
    if kind == "Pod":
        obj["status"] = {"phase": "Pending", "qosClass": qos_class(obj)}


def checked(kind: str, parsed: dict, old: dict | None = None) -> dict:
    """The decoded (and mutated) object validated, with its apiVersion and kind; else Invalid."""
    info = lookup(kind)
    causes = validation.validate(info, parsed)
    if isinstance(info, CustomKind):
        causes += customobjects.causes(info, parsed, old)
    if causes:
        name = parsed["metadata"].get("name") or parsed["metadata"].get("generateName") or ""
        raise invalid(info.kind, name, causes)
    parsed["apiVersion"], parsed["kind"] = info.api_version, info.kind
    return parsed


@cache
def _adapter(annotation: Any) -> TypeAdapter:
    """One per status type: building it compiles a validator (7.9% of a busy apiserver when each
    status update built its own)."""
    return TypeAdapter(annotation)


def admit_status(kind: str, obj: Any) -> dict:
    """A status update: only `status` is checked (against the kind's status model); the store takes
    nothing else from it, as Kubernetes' status subresource ignores the rest."""
    info = lookup(kind)
    if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict):
        raise bad_request(f"the request carries no {info.kind} object")
    _check_type(info, obj)
    if isinstance(info, CustomKind):
        obj = dict(obj)
        causes = customobjects.status_causes(info.schema_for(obj.get("apiVersion")), obj)
        obj["apiVersion"] = info.api_version
        if causes:
            raise invalid(info.kind, obj["metadata"].get("name", ""), causes)
        return obj
    field = info.model.model_fields.get("status")
    if field is None or obj.get("status") is None:
        return obj
    try:
        status = _adapter(field.annotation).validate_python(obj["status"])
    except ValidationError as exc:
        causes = causes_of(exc.errors(), ("status",), field.annotation)
        raise invalid(info.kind, obj["metadata"].get("name", ""), causes) from None
    dumped = status.to_dict() if hasattr(status, "to_dict") else obj["status"]
    return {**obj, "status": dumped}
