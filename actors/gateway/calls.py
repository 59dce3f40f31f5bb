"""One bus request as the caller, awaited on the event loop (the client's future, no thread), and
the answer's admission warnings carried to the HTTP response as `Warning: 299` headers."""
from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from actors.gateway.paths import Target, converters
from api.customkinds import CustomKind
from api.managedfields import raw
from api.status import bad_request
from bus.rpc import unwrap
from runtime.client import Client


async def call(client: Client, verb: str, kind: str, **kw: Any) -> dict:
    """The ok reply (with its `warnings`, if any), or raise the StatusError it carries."""
    return unwrap(await asyncio.wrap_future(client.request_async(verb, kind, **kw)))


def typed(obj: dict, target: Target) -> dict:
    """The object with its kind and apiVersion first, as the apiserver writes them; a custom object in the
    version its path asked for (conversion None rewrites apiVersion alone); a built-in one served in
another version too, converted (api/autoscalingv1); its managedFields' `fieldsV1` texts expanded to the
    JSON objects Kubernetes clients read (api/managedfields/raw.py)."""
    obj = raw.expanded(obj)
    if isinstance(target.info, CustomKind) and target.api_version:
        return {"kind": target.info.kind, **obj, "apiVersion": target.api_version}
    if (convert := converters(target)) is not None:
        return {"kind": target.info.kind, **convert[0](obj)}
    return {"kind": target.info.kind, "apiVersion": target.info.api_version, **obj}


def with_warnings(response: web.StreamResponse, reply: dict, more: list[str] = ()) -> web.StreamResponse:
    """kubectl prints `Warning: <text>` for each (Pod Security's "would violate …", a quota's notes,
    the gateway's own `more`)."""
    for text in [*(reply.get("warnings") or ()), *more]:
        escaped = str(text).replace("\\", "\\\\").replace('"', '\\"')
        response.headers.add("Warning", f'299 - "{escaped}"')
    return response


def dry_run(request: web.Request, body: dict | None = None) -> list[str] | None:
    """`?dryRun=All` (or a DeleteOptions body's `dryRun`); any other value is refused, as Kubernetes does."""
    values = request.query.getall("dryRun", []) or list((body or {}).get("dryRun") or [])
    if not values:
        return None
    if any(v != "All" for v in values):
        raise bad_request(f"Invalid dryRun: {values}: supported values are \"All\"")
    return ["All"]
