"""Who writes, for managedFields: the request's `fieldManager`, else its sender's user agent (a bus
client's app id) up to the first `/`, handed to the store with every write; and server-side apply, which
the apiserver computes against the object it read (merge, removal of dropped fields, conflicts) before
admission, the store keeping the entries it computed."""
from __future__ import annotations

from api import customkinds
from api.managedfields import managers, shape
from api.managedfields.managers import APPLY, Entry
from api.registry import KindInfo
from api.status import StatusError, bad_request
from api.times import now


def manager(call) -> str:
    return managers.manager_of(call.req.options.get("fieldManager"), call.msg.app_id or "")[:managers.MAX_MANAGER]


def stamped(call, body: dict) -> dict:
    """The command's options with the manager; `apply` only on a create, where the apiserver computes it."""
    options = {**call.req.options, "fieldManager": manager(call) or None}
    if call.req.verb != "create":
        options.pop("apply", None)
    body["options"] = {k: v for k, v in options.items() if v is not None}
    return body


def applied_create(call, info: KindInfo, obj: dict) -> dict:
    """A create by an apply: the manager owns what it applied, as an Apply."""
    if not call.req.options.get("apply"):
        return obj
    who = _who(call, info, "")
    fields = managers.apply([], {}, _config(call, info), _shape(info), who, True)[1]
    return {**obj, "metadata": {**obj.get("metadata", {}), "managedFields": managers.encode(fields)}}


def applied_patch(call, info: KindInfo, current: dict) -> dict:
    """The object after the request's apply over `current`, its managedFields updated; a 409 on conflicts."""
    subresource = call.req.options.get("subresource") or ""
    managers.check_manager(call.req.options.get("fieldManager"), True)
    merged, entries = managers.apply(managers.decode(current), current, _config(call, info), _shape(info),
                                     _who(call, info, subresource), bool(call.req.options.get("force")))
    return {**merged, "metadata": {**merged["metadata"], "managedFields": managers.encode(entries)}}


def _config(call, info: KindInfo) -> dict:
    config = call.req.object
    if not isinstance(config, dict):
        raise bad_request("the body of an apply patch must be an object")
    if config.get("apiVersion") not in (None, info.api_version):
        raise StatusError("BadRequest", f'the API version in the data ({config["apiVersion"]}) does not match the '
                                        f"expected API version ({info.api_version})")
    return config


def _who(call, info: KindInfo, subresource: str) -> Entry:
    return Entry(manager(call), APPLY, info.api_version, now(), frozenset(), subresource)


def _shape(info: KindInfo):
    custom = customkinds.custom(info.kind)
    return shape.of_kind(info.kind, custom.schema if custom else None)
