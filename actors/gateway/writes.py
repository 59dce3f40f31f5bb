"""Writes through the bus as the caller: POST (create), PUT (update), PATCH (merge, JSON,
strategic; server-side apply approximated), DELETE — each answered as kube-apiserver answers."""
from __future__ import annotations

from aiohttp import web

from actors.gateway.bodies import APPLY_PATCH, AS_SENT, media_type, object_body, read_body
from actors.gateway.calls import call, dry_run, typed, with_warnings
from actors.gateway.paths import Target
from actors.gateway.responses import object_response
from api import customobjects, fieldvalidation
from api.customkinds import CustomKind
from api.patch.apply import CONTENT_TYPES
from api.status import StatusError, bad_request
from runtime.client import Client

DELETE_QUERY = ("gracePeriodSeconds", "propagationPolicy")


async def create(request: web.Request, client: Client, target: Target, max_bytes: int) -> web.Response:
    obj = _for_target(await object_body(request, max_bytes), target)
    fields = _fields(request, target, obj, decoding=True)
    reply = await call(client, "create", target.info.kind, namespace=target.namespace, obj=obj,
                       options=_options(dryRun=dry_run(request)))
    return with_warnings(object_response(request, typed(reply["object"], target), status=201), reply, fields)


async def replace(request: web.Request, client: Client, target: Target, max_bytes: int) -> web.Response:
    obj = _for_target(await object_body(request, max_bytes), target)
    fields = _fields(request, target, obj, decoding=True)
    verb = "updateStatus" if target.subresource == "status" else "update"
    reply = await call(client, verb, target.info.kind, namespace=target.namespace, name=target.name, obj=obj,
                       resource_version=(obj.get("metadata") or {}).get("resourceVersion"),
                       options=_options(dryRun=dry_run(request)))
    return with_warnings(object_response(request, typed(reply["object"], target)), reply, fields)


async def patch(request: web.Request, client: Client, target: Target, max_bytes: int) -> web.Response:
    kind = media_type(request)
    body = await read_body(request, max_bytes)
    if kind == APPLY_PATCH:
        return await _apply(request, client, target, body)
    if kind not in CONTENT_TYPES:
        raise StatusError("UnsupportedMediaType", f"the media type {kind!r} is not a patch type: use one of "
                                                  f"{', '.join(CONTENT_TYPES)}, {APPLY_PATCH}")
    if CONTENT_TYPES[kind] == "strategic" and isinstance(target.info, CustomKind):
        raise StatusError("UnsupportedMediaType", "the body of the request was in an unknown format - accepted "
                                                  "media types include: application/json-patch+json, "
                                                  f"application/merge-patch+json, {APPLY_PATCH}")
    fields = _fields(request, target, body) if isinstance(body, dict) else []  # a JSON patch names no fields
    reply = await call(client, "patch", target.info.kind, namespace=target.namespace, name=target.name, obj=body,
                       options=_options(patchType=CONTENT_TYPES[kind], subresource=target.subresource,
                                        dryRun=dry_run(request)))
    return with_warnings(object_response(request, typed(reply["object"], target)), reply, fields)


async def _apply(request: web.Request, client: Client, target: Target, body) -> web.Response:
    """Server-side apply, approximated: create when absent, else a strategic merge of the applied
    configuration (no managedFields, no conflicts, fields dropped from it are not removed)."""
    obj = _for_target(body if isinstance(body, dict) else {}, target)
    fields = _fields(request, target, obj)
    options = _options(dryRun=dry_run(request))
    try:
        reply = await call(client, "patch", target.info.kind, namespace=target.namespace, name=target.name,
                           obj=obj, options={**options, "patchType": "merge" if isinstance(target.info, CustomKind)
                                             else "strategic"})
    except StatusError as exc:
        if exc.reason != "NotFound":
            raise
        obj.setdefault("metadata", {})["name"] = target.name
        reply = await call(client, "create", target.info.kind, namespace=target.namespace, obj=obj, options=options)
        return with_warnings(object_response(request, typed(reply["object"], target), status=201), reply, fields)
    return with_warnings(object_response(request, typed(reply["object"], target)), reply, fields)


async def delete(request: web.Request, client: Client, target: Target, max_bytes: int) -> web.Response:
    body = await read_body(request, max_bytes)
    body = body if isinstance(body, dict) else {}
    options = {key: body[key] for key in (*DELETE_QUERY, "preconditions") if body.get(key) is not None}
    for key in DELETE_QUERY:
        if key in request.query:
            options[key] = _grace(request.query[key]) if key == "gracePeriodSeconds" else request.query[key]
    reply = await call(client, "delete", target.info.kind, namespace=target.namespace, name=target.name,
                       options=_options(**options, dryRun=dry_run(request, body)))
    obj = reply["object"]
    if target.info.kind == "Pod" or (obj.get("metadata") or {}).get("deletionTimestamp"):
        return object_response(request, typed(obj, target))  # still there while graceful (pods: always the object)
    meta = obj.get("metadata") or {}
    return object_response(request, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                          "details": {"name": target.name, "group": target.info.group,
                                      "kind": target.info.plural, "uid": meta.get("uid", "")}})


def _for_target(obj: dict, target: Target) -> dict:
    """The body with the URL's kind (its namespace and name are the apiserver's to check: contract 5)."""
    if obj.get("kind") not in (None, "", target.info.kind):
        raise bad_request(f'{obj["kind"]} in version "{obj.get("apiVersion", "")}" cannot be handled as a '
                          f"{target.info.kind}: the body names another kind")
    if isinstance(target.info, CustomKind) and target.api_version:
        return {**obj, "kind": target.info.kind, "apiVersion": target.api_version}
    return {**obj, "kind": target.info.kind}


def _fields(request: web.Request, target: Target, body, decoding: bool = False) -> list[str]:
    """The warnings of `fieldValidation` (unknown and duplicate fields; Warn, the default), or its Strict
    400 before anything is written: a create or update could not decode its body, a patch's result."""
    if target.subresource:
        return []
    kind, version = target.info.kind, (target.api_version or target.info.api_version).split("/")[-1]
    refusal = f'{kind} in version "{version}" cannot be handled as a {kind}: ' if decoding else ""
    sent = request.get(AS_SENT, body)
    unknown = []
    if isinstance(target.info, CustomKind) and isinstance(body, dict):
        unknown = customobjects.unknown_fields(target.info, {**body, "apiVersion": target.api_version})
    return fieldvalidation.checked(kind, sent, fieldvalidation.mode_of(request.query.get("fieldValidation")),
                                   refusal, unknown)


def _options(**values) -> dict:
    return {k: v for k, v in values.items() if v is not None}


def _grace(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise bad_request(f"gracePeriodSeconds: Invalid value: {text!r}: must be an integer") from None
