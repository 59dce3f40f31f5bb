"""The aiohttp application: one catch-all route that authenticates, then serves discovery or a
read; every error is a Kubernetes Status with its code."""
from __future__ import annotations

import structlog
from aiohttp import web

from actors.gateway import discovery, openapi
from actors.gateway.clients import ClientPool
from actors.gateway.paths import split, target
from actors.gateway.reads import read
from actors.gateway.responses import json_response, not_found_path, status_response
from api.status import StatusError, internal_error
from config.settings import Settings

log = structlog.get_logger()
POOL = web.AppKey("pool", ClientPool)


def make_app(settings: Settings, address: str) -> web.Application:
    app = web.Application()
    app[POOL] = ClientPool(settings)
    app.router.add_route("*", "/{path:.*}", handler_for(address))
    app.on_cleanup.append(_close_pool)
    return app


def handler_for(address: str):
    async def handle(request: web.Request) -> web.Response:
        try:
            return await serve(request, address)
        except StatusError as exc:
            return status_response(exc)
        except Exception as exc:  # a bug met by one request: 500, and the gateway goes on serving
            log.exception("gateway.internal_error", path=request.path)
            return status_response(internal_error(exc))
    return handle


async def serve(request: web.Request, address: str) -> web.Response:
    path = "/" + request.path.strip("/")
    if path == "/version":  # public, as kube-apiserver's system:public-info-viewer makes it
        return json_response(discovery.VERSION)
    client = await request.app[POOL].client_for(request.headers.get("Authorization"))
    if path == "/api":
        return json_response(discovery.api_versions(address))
    if path == "/apis":
        return json_response(discovery.api_group_list())
    if path == "/openapi/v3" or path.startswith("/openapi/"):
        return openapi.response(path)
    located = split(path)
    if located is None:
        raise not_found_path(path)
    api_version, rest = located
    if not rest:
        if (resources := discovery.api_resource_list(api_version)) is None:
            raise not_found_path(path)
        return json_response(resources)
    if request.method != "GET":
        raise StatusError("MethodNotAllowed", f"the gateway does not serve {request.method} yet")
    if (found := target(api_version, rest)) is None:
        raise not_found_path(path)
    return await read(request, client, found)


async def _close_pool(app: web.Application) -> None:
    app[POOL].close()
