"""OpenAPI v3: `/openapi/v3` and one document per group-version (not served yet)."""
from __future__ import annotations

from aiohttp import web

from actors.gateway.responses import not_found_path


def response(path: str) -> web.Response:
    raise not_found_path(path)
