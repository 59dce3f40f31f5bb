"""Request bodies: JSON (also when no Content-Type is sent, as the official Python client does),
YAML, the patch types, and protobuf (kubectl >= 1.32's typed clients) for every kind kubus serves."""
from __future__ import annotations

import json
from typing import Any

import yaml
from aiohttp import web

from api import fieldvalidation, protobuf
from api.patch.apply import CONTENT_TYPES
from api.status import StatusError, bad_request, too_large

PROTOBUF = protobuf.MEDIA_TYPE
AS_SENT = "body_as_sent"  # the request's JSON body with its duplicate fields, for fieldValidation
APPLY_PATCH = "application/apply-patch+yaml"


def media_type(request: web.Request) -> str:
    return (request.headers.get("Content-Type") or "application/json").split(";")[0].strip().lower()


async def read_body(request: web.Request, max_bytes: int) -> Any:
    """The decoded body; None when there is none."""
    try:
        raw = await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise too_large(max_bytes) from None
    if not raw:
        return None
    kind = media_type(request)
    if kind == PROTOBUF:
        return protobuf.decode_object(raw)
    if kind in ("application/yaml", APPLY_PATCH):
        return _parsed(raw, yaml.safe_load, "yaml")
    if kind == "application/json" or kind in CONTENT_TYPES:
        if fieldvalidation.mode_of(request.query.get("fieldValidation")) == "Ignore":
            return _parsed(raw, json.loads, "json")
        request[AS_SENT] = _parsed(raw, fieldvalidation.loads_pairs, "json")  # duplicates kept, for the check
        return fieldvalidation.plain(request[AS_SENT])
    raise StatusError("UnsupportedMediaType", f'the body of the request was in an unknown format - accepted '
                                              f'media types include: application/json, application/yaml, '
                                              f'{", ".join(CONTENT_TYPES)}, {APPLY_PATCH}')


async def object_body(request: web.Request, max_bytes: int) -> dict:
    body = await read_body(request, max_bytes)
    if not isinstance(body, dict):
        raise bad_request("the body of the request must be an object")
    return body


def _parsed(raw: bytes, load, name: str) -> Any:
    try:
        return load(raw)
    except (ValueError, yaml.YAMLError) as exc:
        raise bad_request(f"error decoding {name}: {str(exc).splitlines()[0][:300]}") from None
