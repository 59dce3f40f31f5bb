"""OpenAPI: `/openapi/v3` (the index), `/openapi/v3/<group-version>` (cached for good when asked by
the index's hash, as kube-apiserver does) and `/openapi/v2` (api/openapi builds the documents)."""
from __future__ import annotations

import json

from aiohttp import web

from actors.gateway import openapi_v2
from actors.gateway.responses import json_response, not_found_path
from api import openapi

IMMUTABLE = "public, immutable, max-age=31536000"

openapi.index()  # the built-in kinds' documents made and encoded at import: a gateway forked from the warm
# parent (runtime/forkserver) shares them instead of spending 0.5-1.5 s of CPU on its first kubectl apply


def response(request: web.Request, path: str) -> web.Response:
    if path == "/openapi/v3":
        return json_response(openapi.index(), headers={"Cache-Control": "no-cache, private"})
    if path == "/openapi/v2":
        if openapi_v2.ASKED in request.headers.get("Accept", ""):
            return web.Response(body=openapi_v2.encoded(), headers={"Content-Type": openapi_v2.PROTOBUF})
        return web.Response(body=json.dumps(openapi.swagger()).encode(), content_type="application/json")
    gv = path.removeprefix("/openapi/v3/")
    if gv == path or (body := openapi.encoded(gv)) is None:
        raise not_found_path(path)
    fresh = request.query.get("hash") == openapi.digest(gv)
    return web.Response(body=body, headers={"Content-Type": "application/json",
                                            "Cache-Control": IMMUTABLE if fresh else "no-cache, private"})
