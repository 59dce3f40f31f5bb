"""Subresources: `status` (GET, PUT, PATCH), `scale` of Deployments, ReplicaSets and ReplicationControllers (an
autoscaling/v1 Scale over the parent's `spec.replicas`), a pod's `binding` and `eviction` (POST)
`log` (GET, `follow` streamed as the kubelet's output grows), a ServiceAccount's `token` (POST, a
TokenRequest: `kubectl create token`), `exec` and `attach` (remotecommand.py), `portforward` (portforward.py)."""
from __future__ import annotations

import asyncio

from aiohttp import web

from actors.gateway import eviction, portforward, remotecommand, writes
from actors.gateway.bodies import object_body, read_body, media_type
from actors.gateway.calls import call, dry_run, typed, with_warnings
from actors.gateway.paths import Target
from actors.gateway.responses import not_found_path, object_response
from api import customscale
from api.errors import conflict
from api.patch.apply import CONTENT_TYPES, apply_patch
from api.printers.workloads import selector_text
from api.registry import KindInfo
from api.status import StatusError, bad_request
from runtime.client import Client

SCALABLE = {"Deployment", "ReplicaSet", "ReplicationController", "StatefulSet"}
STATUS_KINDS = {"Pod", "Node", "Namespace", "Deployment", "ReplicaSet", "ResourceQuota", "Service", "Ingress",
                "Job", "CronJob", "ReplicationController", "PodDisruptionBudget", "DaemonSet",
                "StatefulSet"}
FOLLOW_POLL_S = 0.5


async def serve(request: web.Request, client: Client, target: Target, max_bytes: int) -> web.StreamResponse:
    sub, method, kind = target.subresource, request.method, target.info.kind
    if sub == "status" and (kind in STATUS_KINDS or getattr(target.info, "status_subresource", False)):
        if method == "GET":
            return object_response(request, typed((await call(client, "get", kind, namespace=target.namespace,
                                                   name=target.name))["object"], target))
        if method in ("PUT", "PATCH"):
            return await (writes.replace if method == "PUT" else writes.patch)(request, client, target, max_bytes)
    elif sub == "scale" and scalable(target.info) and method in ("GET", "PUT", "PATCH"):
        return await scale(request, client, target, max_bytes)
    elif sub == "binding" and kind == "Pod" and method == "POST":
        return await binding(request, client, target, max_bytes)
    elif sub == "eviction" and kind == "Pod" and method == "POST":
        return await eviction.evict(request, client, target, max_bytes)
    elif sub == "log" and kind == "Pod" and method == "GET":
        return await log(request, client, target)
    elif sub == "token" and kind == "ServiceAccount" and method == "POST":
        return await token(request, client, target, max_bytes)
    elif sub in ("exec", "attach") and kind == "Pod" and method in ("GET", "POST"):
        return await remotecommand.serve(request, client, target, sub)
    elif sub == "portforward" and kind == "Pod" and method in ("GET", "POST"):
        return await portforward.serve(request, client, target)
    raise not_found_path(request.path)


# ---- token -------------------------------------------------------------------------------------------
async def token(request: web.Request, client: Client, target: Target, max_bytes: int) -> web.Response:
    """A TokenRequest: its spec's expiry, audiences and bound pod (Kubernetes also binds Secrets and
    Nodes; kubus binds pods only) go to the apiserver, which answers the TokenRequest."""
    spec = (await read_body(request, max_bytes) or {}).get("spec") or {}
    bound = spec.get("boundObjectRef") or {}
    if bound and bound.get("kind") != "Pod":
        raise bad_request(f'cannot bind a token to a {bound.get("kind")!r}: kubus binds tokens to Pods only')
    options = {"pod": bound.get("name"), "expirationSeconds": spec.get("expirationSeconds"),
               "audiences": spec.get("audiences")}
    reply = await call(client, "token", "ServiceAccount", namespace=target.namespace, name=target.name,
                       options={k: v for k, v in options.items() if v is not None})
    return object_response(request, reply["object"], status=201)


# ---- scale -----------------------------------------------------------------------------------------
def scalable(info: KindInfo) -> bool:
    return info.kind in SCALABLE or getattr(info, "scale", None) is not None


async def scale(request: web.Request, client: Client, target: Target, max_bytes: int) -> web.Response:
    parent = (await call(client, "get", target.info.kind, namespace=target.namespace, name=target.name))["object"]
    custom = getattr(target.info, "scale", None)

    def scale_of(obj: dict) -> dict:
        return customscale.scale_of(custom, obj) if custom is not None else builtin_scale_of(obj)
    if request.method == "GET":
        return object_response(request, scale_of(parent))
    if request.method == "PUT":
        wanted = await object_body(request, max_bytes)
        rv = (wanted.get("metadata") or {}).get("resourceVersion")
        if rv and rv != parent["metadata"]["resourceVersion"]:
            raise conflict(target.info.kind, target.name)
    else:
        kind = media_type(request)
        if kind not in CONTENT_TYPES:
            raise StatusError("UnsupportedMediaType", f"the media type {kind!r} is not a patch type")
        wanted = apply_patch("Scale", scale_of(parent), await read_body(request, max_bytes), CONTENT_TYPES[kind],
                             max_bytes)
    replicas = (wanted.get("spec") or {}).get("replicas")
    if custom is not None:
        parent = customscale.scaled(custom, parent, replicas, target.name)
    elif not isinstance(replicas, int) or isinstance(replicas, bool) or replicas < 0:
        raise StatusError("Invalid", f'Scale.autoscaling "{target.name}" is invalid: spec.replicas: Invalid value: '
                                     f"{replicas!r}: must be greater than or equal to 0")
    else:
        parent["spec"]["replicas"] = replicas
    reply = await call(client, "update", target.info.kind, namespace=target.namespace, name=target.name,
                       obj=typed(parent, target), resource_version=parent["metadata"]["resourceVersion"],
                       options={"dryRun": ["All"]} if dry_run(request) else {})
    return with_warnings(object_response(request, scale_of(reply["object"])), reply)


def builtin_scale_of(parent: dict) -> dict:
    meta, spec, status = parent["metadata"], parent.get("spec") or {}, parent.get("status") or {}
    return {"kind": "Scale", "apiVersion": "autoscaling/v1",
            "metadata": {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
                         if k in meta},
            "spec": {"replicas": spec.get("replicas", 1)},
            "status": {"replicas": status.get("replicas", 0), "selector": _selector(parent)}}


def _selector(parent: dict) -> str:
    """A ReplicationController's selector is a plain map of labels."""
    selector = (parent.get("spec") or {}).get("selector")
    if parent.get("kind") == "ReplicationController":
        return ",".join(f"{k}={v}" for k, v in sorted((selector or {}).items()))
    return selector_text(selector)


# ---- binding and log ---------------------------------------------------------------------------------
async def binding(request: web.Request, client: Client, target: Target, max_bytes: int) -> web.Response:
    body = await object_body(request, max_bytes)
    node = (body.get("target") or {}).get("name")
    if not node:
        raise bad_request("target.name: Required value")
    uid = ((body.get("metadata") or {}).get("uid")) or None
    await call(client, "bind", "Pod", namespace=target.namespace, name=target.name,
               obj={**body, "kind": "Binding", "apiVersion": "v1"}, options={"uid": uid} if uid else {})
    created = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}
    return object_response(request, created, status=201)


async def log(request: web.Request, client: Client, target: Target) -> web.StreamResponse:
    query = request.query
    options = {"container": query.get("container"), "tail": _int(query.get("tailLines"), "tailLines"),
               "previous": query.get("previous") == "true" or None,
               "limitBytes": _int(query.get("limitBytes"), "limitBytes"),
               "timestamps": query.get("timestamps") == "true" or None,
               "sinceSeconds": _int(query.get("sinceSeconds"), "sinceSeconds"), "sinceTime": query.get("sinceTime")}
    chunk = await _logs(client, target, {k: v for k, v in options.items() if v is not None})
    if query.get("follow") != "true":
        return web.Response(text=chunk["text"], content_type="text/plain")
    response = web.StreamResponse(headers={"Content-Type": "text/plain"})
    await response.prepare(request)
    await response.write(chunk["text"].encode())
    while chunk.get("running") and not request.transport.is_closing():
        await asyncio.sleep(FOLLOW_POLL_S)
        step = {"offset": chunk["offset"], **{k: options[k] for k in ("container", "timestamps") if options[k]}}
        chunk = await _logs(client, target, step)
        if chunk["text"]:
            await response.write(chunk["text"].encode())
    await response.write_eof()
    return response


async def _logs(client: Client, target: Target, options: dict) -> dict:
    return await call(client, "logs", "Pod", namespace=target.namespace, name=target.name, options=options)


def _int(text: str | None, name: str) -> int | None:
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        raise bad_request(f"{name}: Invalid value: {text!r}: must be an integer") from None
