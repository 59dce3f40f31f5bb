"""JSON answers: objects, lists, and errors as Kubernetes Status objects."""
from __future__ import annotations

import json

from aiohttp import web

from api.status import StatusError

JSON = "application/json"


def json_response(body: dict, status: int = 200, content_type: str = JSON,
                  headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(body=json.dumps(body, separators=(",", ":")).encode(), status=status,
                        headers={"Content-Type": content_type, **(headers or {})})


def status_body(error: StatusError) -> dict:
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": error.message, "reason": error.reason}
    details = error.to_dict()["details"]
    if details:
        body["details"] = details
    body["code"] = error.code
    return body


def status_response(error: StatusError) -> web.Response:
    """With `Retry-After` when the status says when to retry (429, 5xx), as kube-apiserver's writers do."""
    retry = error.details.get("retryAfterSeconds")
    return json_response(status_body(error), status=error.code,
                         headers={"Retry-After": str(retry)} if retry else None)


def not_found_path(path: str) -> StatusError:
    return StatusError("NotFound", "the server could not find the requested resource")
