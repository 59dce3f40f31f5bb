"""Answers: API objects, lists and errors (Kubernetes Status objects) in the encoding the client
prefers — protobuf when its Accept list names `application/vnd.kubernetes.protobuf` before JSON (as
client-go's typed clients ask: `application/vnd.kubernetes.protobuf,application/json`), else JSON. A
Table, and any object without a protobuf message, is JSON (Kubernetes serves Table only as JSON)."""
from __future__ import annotations

import json

import structlog
from aiohttp import web

from api import protobuf
from api.status import StatusError

log = structlog.get_logger()
JSON = "application/json"
JSON_LIKE = frozenset({JSON, "*/*", "application/*", "application/yaml"})


def wants_protobuf(accept: str | None) -> bool:
    """The first media type of the Accept list kubus can answer is protobuf (`as=Table` asks for JSON)."""
    for part in (accept or "").split(","):
        media, *params = (p.strip() for p in part.split(";"))
        if any(p.startswith("as=") for p in params):
            continue
        if media.lower() == protobuf.MEDIA_TYPE:
            return True
        if media.lower() in JSON_LIKE:
            return False
    return False


def json_response(body: dict, status: int = 200, content_type: str = JSON,
                  headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(body=json.dumps(body, separators=(",", ":")).encode(), status=status,
                        headers={"Content-Type": content_type, **(headers or {})})


def object_response(request: web.Request | None, body: dict, status: int = 200, content_type: str = JSON,
                    headers: dict[str, str] | None = None) -> web.Response:
    """An API object as protobuf when the client prefers it and its kind has a message, else JSON."""
    if request is not None and wants_protobuf(request.headers.get("Accept")) and protobuf.encodable(body):
        try:
            encoded = protobuf.encode_object(body)
        except (ValueError, TypeError) as exc:  # a value its message cannot hold: JSON, which the client reads too
            log.warning("gateway.protobuf_fallback", kind=body.get("kind"), error=str(exc))
        else:
            return web.Response(body=encoded, status=status,
                                headers={"Content-Type": protobuf.MEDIA_TYPE, **(headers or {})})
    return json_response(body, status, content_type, headers)


def status_body(error: StatusError) -> dict:
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": error.message, "reason": error.reason}
    details = error.to_dict()["details"]
    if details:
        body["details"] = details
    body["code"] = error.code
    return body


def status_response(error: StatusError, request: web.Request | None = None) -> web.Response:
    """With `Retry-After` when the status says when to retry (429, 5xx), as kube-apiserver's writers do."""
    retry = error.details.get("retryAfterSeconds")
    return object_response(request, status_body(error), status=error.code,
                           headers={"Retry-After": str(retry)} if retry else None)


def not_found_path(path: str) -> StatusError:
    return StatusError("NotFound", "the server could not find the requested resource")
