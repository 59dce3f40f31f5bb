"""The aiohttp application: one catch-all route that authenticates, then serves discovery, OpenAPI,
an access review, or a resource (read, watch, write, subresource); every error is a Kubernetes
Status with its code."""
from __future__ import annotations

import structlog
from aiohttp import web

from actors.gateway import aggregated, discovery, metricsapi, openapi, served, subresources, writes
from actors.gateway.bodies import object_body
from actors.gateway.calls import call, with_warnings
from actors.gateway.clients import ClientPool
from actors.gateway.impersonation import Impersonating, acting, unsupported_watch
from actors.gateway.paths import Target, review_kind, split, target
from actors.gateway.reads import read
from actors.gateway.responses import json_response, not_found_path, object_response, status_response
from actors.gateway.watch import serve_watch
from api import metrics
from api.crdversions import deprecation
from api.customkinds import CustomKind
from api.status import StatusError, internal_error
from config.settings import Settings
from runtime.client import Client

log = structlog.get_logger()
POOL = web.AppKey("pool", ClientPool)
DEPRECATED = "deprecation_warning"
WRITERS = {"POST": writes.create, "PUT": writes.replace, "PATCH": writes.patch, "DELETE": writes.delete}


def make_app(settings: Settings, address: str) -> web.Application:
    app = web.Application(client_max_size=settings.max_object_bytes + 64 * 1024)
    app[POOL] = ClientPool(settings)
    app.router.add_route("*", "/{path:.*}", handler_for(address, settings.max_object_bytes))
    app.on_cleanup.append(_close_pool)
    app.on_response_prepare.append(_deprecation_warning)
    return app


def handler_for(address: str, max_bytes: int):
    async def handle(request: web.Request) -> web.StreamResponse:
        try:
            return await serve(request, address, max_bytes)
        except StatusError as exc:
            return status_response(exc, request)
        except Exception as exc:  # a bug met by one request: 500, and the gateway goes on serving
            log.exception("gateway.internal_error", path=request.path, method=request.method)
            return status_response(internal_error(exc), request)
    return handle


async def serve(request: web.Request, address: str, max_bytes: int) -> web.StreamResponse:
    path = "/" + request.path.strip("/")
    if path == "/version":  # public, as kube-apiserver's system:public-info-viewer makes it
        return json_response(discovery.VERSION)
    client = acting(await request.app[POOL].client_for(request.headers.get("Authorization"), request.remote or ""),
                    request.headers)
    if path == "/apis" or path.startswith(("/apis/", "/openapi/")):
        await served.refresh(client, 0.0 if path == "/apis" or path.count("/") < 4 else served.FRESH_S)
    if path in ("/api", "/apis") and (version := aggregated.asked(request.headers.get("Accept"))):
        return json_response(aggregated.group_list(version, path == "/api"),
                             content_type=aggregated.content_type(version))
    if path == "/api":
        return json_response(discovery.api_versions(address))
    if path == "/apis":
        return json_response(discovery.api_group_list())
    if path.startswith("/openapi/"):
        return openapi.response(request, path)
    located = split(path)
    if located is None:
        raise not_found_path(path)
    api_version, rest = located
    if api_version == metrics.API_VERSION:
        return await metricsapi.serve(request, client, rest)
    if path.startswith("/apis/") and rest and not review_kind(api_version, rest) and target(api_version, rest) is None:
        await served.refresh(client)  # a kind just established, perhaps
    if not rest:
        if (resources := discovery.api_resource_list(api_version)) is None:
            raise not_found_path(path)
        return json_response(resources)
    if (review := review_kind(api_version, rest)) and request.method == "POST":
        obj = await object_body(request, max_bytes)
        return object_response(request, (await call(client, "create", review, obj=obj))["object"], status=201)
    if (found := target(api_version, rest)) is None:
        raise not_found_path(path)
    if isinstance(found.info, CustomKind) and (text := deprecation(found.info.source, api_version.partition("/")[2])):
        request[DEPRECATED] = text
    if found.subresource:
        return await subresources.serve(request, client, found, max_bytes)
    return await resource(request, client, found, max_bytes)


async def resource(request: web.Request, client: Client, found: Target, max_bytes: int) -> web.StreamResponse:
    method, collection = request.method, found.name is None
    if method == "GET":
        if collection and request.query.get("watch") in ("true", "1"):
            if isinstance(client, Impersonating):
                raise unsupported_watch()
            return await serve_watch(request, request.app[POOL], client, found)
        return await read(request, client, found, request.app[POOL])
    if method == "DELETE" and collection:
        return await writes.delete_collection(request, client, found, max_bytes)
    if (method == "POST") == collection and method in WRITERS:
        return await WRITERS[method](request, client, found, max_bytes)
    raise StatusError("MethodNotAllowed", "the server does not allow this method on the requested resource")


async def _deprecation_warning(request: web.Request, response: web.StreamResponse) -> None:
    """Every answer from a deprecated version of a custom kind carries its warning (watches too)."""
    if DEPRECATED in request:
        with_warnings(response, {}, [request[DEPRECATED]])


async def _close_pool(app: web.Application) -> None:
    app[POOL].close()
