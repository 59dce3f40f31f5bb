"""Writes through the bus as the caller: POST (create), PUT (update), PATCH (merge, JSON,
strategic, server-side apply), DELETE — each answered as kube-apiserver answers. Every write names its
field manager: `?fieldManager=`, else the User-Agent up to its first `/`."""
from __future__ import annotations

from aiohttp import web

from actors.gateway.bodies import APPLY_PATCH, AS_SENT, media_type, object_body, read_body
from actors.gateway.calls import call, dry_run, typed, with_warnings
from actors.gateway.paths import Target, converters
from actors.gateway.responses import object_response
from api import customobjects, fieldvalidation
from api.customkinds import CustomKind
from api.managedfields import raw
from api.managedfields.managers import check_manager, manager_of
from api.patch.apply import CONTENT_TYPES
from api.status import Cause, StatusError, bad_request
from runtime.client import Client

DELETE_QUERY = ("gracePeriodSeconds", "propagationPolicy")


async def create(request: web.Request, client: Client, target: Target, max_bytes: int) -> web.Response:
    obj = _for_target(await object_body(request, max_bytes), target)
    fields = _fields(request, target, obj, decoding=True)
    reply = await call(client, "create", target.info.kind, namespace=target.namespace, obj=carried(obj),
                       options=_options(dryRun=dry_run(request), fieldManager=_manager(request)))
    return with_warnings(object_response(request, typed(reply["object"], target), status=201), reply, fields)


async def replace(request: web.Request, client: Client, target: Target, max_bytes: int) -> web.Response:
    obj = _for_target(await object_body(request, max_bytes), target)
    fields = _fields(request, target, obj, decoding=True)
    verb = "updateStatus" if target.subresource == "status" else "update"
    reply = await call(client, verb, target.info.kind, namespace=target.namespace, name=target.name, obj=carried(obj),
                       resource_version=(obj.get("metadata") or {}).get("resourceVersion"),
                       options=_options(dryRun=dry_run(request), fieldManager=_manager(request)))
    return with_warnings(object_response(request, typed(reply["object"], target)), reply, fields)


async def patch(request: web.Request, client: Client, target: Target, max_bytes: int) -> web.Response:
    kind = media_type(request)
    body = await read_body(request, max_bytes)
    if converters(target) is not None:  # a patch in v1's terms is not applied to the stored v2 object
        raise StatusError("MethodNotAllowed", f"kubus does not patch {target.info.plural} in {target.api_version}: "
                                              f"patch them in {target.info.api_version}")
    if kind == APPLY_PATCH:
        return await _apply(request, client, target, body)
    if "force" in request.query:
        raise StatusError("Invalid", 'PatchOptions.meta.k8s.io "" is invalid: force: Invalid value: true: may not '
                                     "be specified for non-apply patch", [Cause("force", "Invalid value: true: may "
                                                                          "not be specified for non-apply patch")])
    if kind not in CONTENT_TYPES:
        raise StatusError("UnsupportedMediaType", f"the media type {kind!r} is not a patch type: use one of "
                                                  f"{', '.join(CONTENT_TYPES)}, {APPLY_PATCH}")
    if CONTENT_TYPES[kind] == "strategic" and isinstance(target.info, CustomKind):
        raise StatusError("UnsupportedMediaType", "the body of the request was in an unknown format - accepted "
                                                  "media types include: application/json-patch+json, "
                                                  f"application/merge-patch+json, {APPLY_PATCH}")
    fields = _fields(request, target, body) if isinstance(body, dict) else []  # a JSON patch names no fields
    reply = await call(client, "patch", target.info.kind, namespace=target.namespace, name=target.name,
                       obj=carried(body),
                       options=_options(patchType=CONTENT_TYPES[kind], subresource=target.subresource,
                                        dryRun=dry_run(request), fieldManager=_manager(request)))
    return with_warnings(object_response(request, typed(reply["object"], target)), reply, fields)


async def _apply(request: web.Request, client: Client, target: Target, body) -> web.Response:
    """Server-side apply: the apiserver merges the configuration into the object, removes what the manager
    applied before and no longer does, and answers 409 on another manager's fields (unless `force`);
    an absent object is created, its manager owning what it applied."""
    obj = _for_target(body if isinstance(body, dict) else {}, target)
    manager = request.query.get("fieldManager")
    check_manager(manager, True)
    fields = _fields(request, target, obj)
    options = _options(dryRun=dry_run(request), fieldManager=manager)
    try:
        reply = await call(client, "patch", target.info.kind, namespace=target.namespace, name=target.name,
                           obj=obj, options=_options(**options, patchType="apply", subresource=target.subresource or None,
                                                     force=request.query.get("force", "").lower() == "true" or None))
    except StatusError as exc:
        if exc.reason != "NotFound" or target.subresource:
            raise
        obj.setdefault("metadata", {})["name"] = target.name
        reply = await call(client, "create", target.info.kind, namespace=target.namespace, obj=obj,
                           options={**options, "apply": True})
        return with_warnings(object_response(request, typed(reply["object"], target), status=201), reply, fields)
    return with_warnings(object_response(request, typed(reply["object"], target)), reply, fields)


async def delete_options(request: web.Request, max_bytes: int) -> dict:
    """A DELETE's DeleteOptions: its body's, then the query's gracePeriodSeconds and propagationPolicy."""
    body = await read_body(request, max_bytes)
    body = body if isinstance(body, dict) else {}
    options = {key: body[key] for key in (*DELETE_QUERY, "preconditions") if body.get(key) is not None}
    for key in DELETE_QUERY:
        if key in request.query:
            options[key] = _grace(request.query[key]) if key == "gracePeriodSeconds" else request.query[key]
    return _options(**options, dryRun=dry_run(request, body))


async def delete(request: web.Request, client: Client, target: Target, max_bytes: int) -> web.Response:
    options = await delete_options(request, max_bytes)
    reply = await call(client, "delete", target.info.kind, namespace=target.namespace, name=target.name,
                       options=options)
    obj = reply["object"]
    if target.info.kind == "Pod" or (obj.get("metadata") or {}).get("deletionTimestamp"):
        return object_response(request, typed(obj, target))  # still there while graceful (pods: always the object)
    meta = obj.get("metadata") or {}
    return object_response(request, {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success",
                          "details": {"name": target.name, "group": target.info.group,
                                      "kind": target.info.plural, "uid": meta.get("uid", "")}})


def carried(body):
    """A client's body as the bus carries it: each `fieldsV1` the JSON text of what was sent (contract 2)."""
    return raw.packed_object(body, sent_as_json=True)


def _for_target(obj: dict, target: Target) -> dict:
    """The body with the URL's kind (its namespace and name are the apiserver's to check: contract 5)."""
    if obj.get("kind") not in (None, "", target.info.kind):
        raise bad_request(f'{obj["kind"]} in version "{obj.get("apiVersion", "")}" cannot be handled as a '
                          f"{target.info.kind}: the body names another kind")
    if isinstance(target.info, CustomKind) and target.api_version:
        return {**obj, "kind": target.info.kind, "apiVersion": target.api_version}
    if (convert := converters(target)) is not None:
        return convert[1]({**obj, "kind": target.info.kind})
    return {**obj, "kind": target.info.kind}


def _fields(request: web.Request, target: Target, body, decoding: bool = False) -> list[str]:
    """The warnings of `fieldValidation` (unknown and duplicate fields; Warn, the default), or its Strict
    400 before anything is written: a create or update could not decode its body, a patch's result."""
    if target.subresource:
        return []
    kind, version = target.info.kind, (target.api_version or target.info.api_version).split("/")[-1]
    refusal = f'{kind} in version "{version}" cannot be handled as a {kind}: ' if decoding else ""
    sent = request.get(AS_SENT, body) if converters(target) is None else body  # read as converted
    unknown = []
    if isinstance(target.info, CustomKind) and isinstance(body, dict):
        unknown = customobjects.unknown_fields(target.info, {**body, "apiVersion": target.api_version})
    return fieldvalidation.checked(kind, sent, fieldvalidation.mode_of(request.query.get("fieldValidation")),
                                   refusal, unknown)


async def delete_collection(request: web.Request, client: Client, target: Target, max_bytes: int) -> web.Response:
    """`DELETE …/pods?labelSelector=…`: the apiserver's deletecollection; answered with the list of the
    deleted items, as kube-apiserver answers it."""
    options = await delete_options(request, max_bytes)
    options.update({k: request.query[k] for k in ("labelSelector", "fieldSelector") if request.query.get(k)})
    reply = await call(client, "deletecollection", target.info.kind, namespace=target.namespace, options=options)
    return with_warnings(object_response(request, {
        "kind": f"{target.info.kind}List", "apiVersion": target.info.api_version,
        "metadata": {"resourceVersion": str(reply.get("rev", ""))},
        "items": [typed(obj, target) for obj in reply["items"]]}), reply)


def _manager(request: web.Request) -> str | None:
    check_manager(request.query.get("fieldManager"), False)
    return manager_of(request.query.get("fieldManager"), request.headers.get("User-Agent", ""))[:128] or None


def _options(**values) -> dict:
    return {k: v for k, v in values.items() if v is not None}


def _grace(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise bad_request(f"gracePeriodSeconds: Invalid value: {text!r}: must be an integer") from None
