"""GET of one object and LIST of a kind, through the bus as the caller; answered as JSON or,
when kubectl asks for one, as a Table. A list starts the person's watch cache of the kind first,
so a watch from the list's resourceVersion finds every later change in its window. `limit` cuts a
list into pages served from that list (a `continue` token names it), all at its revision."""
from __future__ import annotations

from aiohttp import web

from actors.gateway.calls import call, typed
from actors.gateway.impersonation import Impersonating, owner
from actors.gateway.paths import Target
from actors.gateway.responses import object_response
from actors.gateway.tables import TABLE_CONTENT_TYPE, table, wants_table
from api.status import StatusError
from runtime.client import Client


async def read(request: web.Request, client: Client, target: Target, pool) -> web.Response:
    query = request.query
    if target.name is None:
        items, rev, more = await _list(request, client, target, pool)
    else:
        obj = (await call(client, "get", target.info.kind, namespace=target.namespace, name=target.name))["object"]
        items, rev, more = [typed(obj, target)], (obj.get("metadata") or {}).get("resourceVersion", ""), None
        if not wants_table(request.headers.get("Accept")):
            return object_response(request, items[0])
    if wants_table(request.headers.get("Accept")):
        body = table(target.info.kind, items, rev, query.get("includeObject"))
    else:
        body = {"kind": f"{target.info.kind}List", "apiVersion": target.info.api_version,
                "metadata": {"resourceVersion": rev}, "items": items}
    if more:
        body["metadata"].update(more)
    return object_response(request, body,
                           content_type=TABLE_CONTENT_TYPE if "Table" == body["kind"] else "application/json")


async def _list(request: web.Request, client: Client, target: Target, pool) -> tuple[list[dict], str, dict | None]:
    query, pages = request.query, pool.pages
    if query.get("continue"):
        return pages.next(owner(client), query["continue"], _limit(query.get("limit")))
    try:
        if not isinstance(client, Impersonating):  # a watch cache is the caller's own
            await pool.cache_for(client, target.info, target.namespace)
    except StatusError as exc:
        if exc.reason not in ("Forbidden", "Timeout"):
            raise  # allowed to list but not to watch: the list alone is still served
    options = {k: query[k] for k in ("labelSelector", "fieldSelector") if query.get(k)}
    reply = await call(client, "list", target.info.kind, namespace=target.namespace, options=options)
    items = [typed(obj, target) for obj in reply["items"]]
    return pages.first(owner(client), items, str(reply["rev"]), _limit(query.get("limit")))


def _limit(text: str | None) -> int | None:
    try:
        return int(text) if text and int(text) > 0 else None
    except ValueError:
        return None  # kube-apiserver ignores a limit it cannot read
