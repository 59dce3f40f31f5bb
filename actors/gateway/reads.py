"""GET of one object and LIST of a kind, through the bus as the caller; answered as JSON or,
when kubectl asks for one, as a Table."""
from __future__ import annotations

import asyncio
from functools import partial

from aiohttp import web

from actors.gateway.paths import Target
from actors.gateway.responses import json_response
from actors.gateway.tables import TABLE_CONTENT_TYPE, table, wants_table
from runtime.client import Client


async def read(request: web.Request, client: Client, target: Target) -> web.Response:
    if target.name is None:
        items, rev = await _list(request, client, target)
    else:
        obj = await _blocking(client.get, target.info.kind, target.name, target.namespace)
        items, rev = [_typed(obj, target)], (obj.get("metadata") or {}).get("resourceVersion", "")
        if not wants_table(request.headers.get("Accept")):
            return json_response(items[0])
    if wants_table(request.headers.get("Accept")):
        body = table(target.info.kind, items, rev, request.query.get("includeObject"))
        return json_response(body, content_type=TABLE_CONTENT_TYPE)
    return json_response({"kind": f"{target.info.kind}List", "apiVersion": target.info.api_version,
                          "metadata": {"resourceVersion": rev}, "items": items})


async def _list(request: web.Request, client: Client, target: Target) -> tuple[list[dict], str]:
    result = await _blocking(client.list, target.info.kind, target.namespace,
                             request.query.get("labelSelector") or None, request.query.get("fieldSelector") or None)
    return [_typed(obj, target) for obj in result.items], str(result.rev)


def _typed(obj: dict, target: Target) -> dict:
    """The object with its kind and apiVersion first, as the apiserver writes them."""
    return {"kind": target.info.kind, "apiVersion": target.info.api_version, **obj}


async def _blocking(fn, *args):
    """A blocking Client call, on the default thread pool (never on the event loop)."""
    return await asyncio.get_running_loop().run_in_executor(None, partial(fn, *args))
