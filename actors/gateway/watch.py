"""`GET <collection>?watch=true`: newline-delimited JSON events, one per line, flushed per event (or,
when the client prefers protobuf, `;stream=watch` frames: a 4-byte length and a WatchEvent each),
from the person's watch cache: synthetic ADDED for resourceVersion unset or 0, else every change
after it; BOOKMARKs when asked; ERROR with a Status (410 Expired when the version is too old) and
the end of the stream otherwise; the stream ends at `timeoutSeconds`.

Every HTTP watch is a request an apiserver sees, as every watch is in Kubernetes: the gateway asks
for the cache's bus watch again (the same queue and keys, which the apiserver declares again, a
no-op), so the apiserver authorizes it as of now and writes it to its audit log — one audit log per
apiserver keeps every request, and a watch served from a cache made earlier is not left out."""
from __future__ import annotations

import asyncio
import json
import random
import time

from aiohttp import web

from actors.gateway.calls import call, typed
from actors.gateway.paths import Target
from actors.gateway.responses import JSON, status_body, wants_protobuf
from actors.gateway.tables import TABLE_CONTENT_TYPE, table, wants_table
from actors.gateway.watchcache import KindCache
from api import protobuf
from api import customobjects
from api.customkinds import CustomKind
from api.fieldselectors import parse_fields, supported
from api.selectors import parse
from api.status import StatusError, bad_request

BOOKMARK_S = 5.0  # how often a quiet watch that asked for bookmarks gets one
INITIAL_EVENTS_END = "k8s.io/initial-events-end"
WATCH_PROTOBUF = f"{protobuf.MEDIA_TYPE};stream=watch"


async def serve_watch(request: web.Request, pool, client, target: Target) -> web.StreamResponse:
    query = request.query
    matches = matcher(query.get("labelSelector"), query.get("fieldSelector"), target.info)
    initial = query.get("sendInitialEvents") == "true"
    since = None if initial or query.get("resourceVersion") in (None, "", "0") else _rev(query["resourceVersion"])
    wide = pool.covering(client, target.info, target.namespace, since) if since is not None else None
    if wide is not None:  # a list across namespaces, then a watch in one from its resourceVersion
        cache, matches = wide, _in_namespace(target.namespace, matches)
    else:
        cache = await pool.cache_for(client, target.info, target.namespace)
    await call(client, "watch", "*", options=cache.watch_options())
    accept = request.headers.get("Accept")
    as_table, as_protobuf = wants_table(accept), not wants_table(accept) and wants_protobuf(accept)
    content_type = TABLE_CONTENT_TYPE if as_table else WATCH_PROTOBUF if as_protobuf else JSON
    response = web.StreamResponse(headers={"Content-Type": content_type})
    await response.prepare(request)
    stream = Stream(request, response, target, as_table, as_protobuf)
    try:
        watcher, first = cache.subscribe(since, matches)
    except StatusError as exc:
        await stream.error(exc)
        return response
    try:
        for event in first:
            await stream.send(event)
        if initial:
            await stream.bookmark(cache.progress, {INITIAL_EVENTS_END: "true"})
        await _follow(stream, cache, watcher, query)
    except (ConnectionResetError, asyncio.CancelledError):
        pass  # the client went away
    finally:
        cache.unsubscribe(watcher)
    return response


async def _follow(stream: "Stream", cache: KindCache, watcher, query) -> None:
    deadline = time.monotonic() + _timeout(query.get("timeoutSeconds"))
    bookmarks = query.get("allowWatchBookmarks") == "true"
    if bookmarks:
        cache.refresh_progress()
    while (left := deadline - time.monotonic()) > 0 and not _gone(stream.request):
        try:
            event = await asyncio.wait_for(watcher.queue.get(), min(left, BOOKMARK_S))
        except asyncio.TimeoutError:
            if bookmarks and left > BOOKMARK_S:
                await stream.bookmark(max(cache.progress, watcher.after))
                cache.refresh_progress()  # for the next one
            continue
        await stream.send(event)
        if event[0] == "ERROR":
            return


class Stream:
    def __init__(self, request: web.Request, response: web.StreamResponse, target: Target, as_table: bool,
                 as_protobuf: bool = False):
        self.request, self.response, self.target, self.as_table = request, response, target, as_table
        self.as_protobuf = as_protobuf
        self.include = request.query.get("includeObject")

    async def send(self, event: tuple) -> None:
        kind, obj = event
        if kind == "ERROR":
            await self.error(obj)
            return
        body = typed(obj, self.target)
        if self.as_table:
            body = table(self.target.info.kind, [body], body["metadata"].get("resourceVersion", ""), self.include)
        await self._line({"type": kind, "object": body})

    async def error(self, error: StatusError) -> None:
        await self._line({"type": "ERROR", "object": status_body(error)})

    async def bookmark(self, rev: int, annotations: dict | None = None) -> None:
        meta = {"resourceVersion": str(rev), **({"annotations": annotations} if annotations else {})}
        obj = {"kind": self.target.info.kind, "apiVersion": self.target.info.api_version, "metadata": meta}
        await self._line({"type": "BOOKMARK", "object": obj})

    async def _line(self, event: dict) -> None:
        """A JSON line, or a length-prefixed protobuf frame."""
        if self.as_protobuf:
            await self.response.write(protobuf.watch_frame(event["type"], event["object"]))
        else:
            await self.response.write(json.dumps(event, separators=(",", ":")).encode() + b"\n")


def _gone(request: web.Request) -> bool:
    """The client closed the connection (aiohttp does not cancel a handler for it)."""
    return request.transport is None or request.transport.is_closing()


def matcher(label_selector: str | None, field_selector: str | None, info=None):
    try:
        labels = parse(label_selector)
    except ValueError as exc:
        raise bad_request(f"unable to parse requirement: {exc}") from None
    fields = parse_fields(field_selector)
    if isinstance(info, CustomKind):
        customobjects.check_fields(info, fields)
    elif info is not None:
        fields = supported(info.kind, fields)
    return lambda obj: labels.matches((obj.get("metadata") or {}).get("labels")) and fields.matches(obj)


def _in_namespace(namespace: str, matches):
    return lambda obj: (obj.get("metadata") or {}).get("namespace") == namespace and matches(obj)


def _rev(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise bad_request(f'invalid resource version "{text}"') from None


def _timeout(text: str | None) -> float:
    """`timeoutSeconds`, else 30-60 minutes as kube-apiserver picks."""
    try:
        return max(0.0, float(text)) if text else random.uniform(1800, 3600)
    except ValueError:
        raise bad_request(f"timeoutSeconds: Invalid value: {text!r}") from None
