"""Bounded msgpack encoding and decoding of message bodies (contract 2)."""
from __future__ import annotations

from typing import Any

import msgpack

from bus.topology import SCHEMA_HEADER, SCHEMA_VERSION


class DecodeError(Exception):
    """A message that cannot be decoded or validated; it goes to the dead-letter queue."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def encode(body: dict[str, Any]) -> bytes:
    return msgpack.packb(body, use_bin_type=True)


def _refuse_ext(code: int, data: bytes) -> Any:
    raise DecodeError("undecodable", f"msgpack extension type {code} is not allowed")


def check_schema(headers: dict | None) -> None:
    version = (headers or {}).get(SCHEMA_HEADER)
    if version != SCHEMA_VERSION:
        raise DecodeError("schema", f"header {SCHEMA_HEADER}={version!r}, expected {SCHEMA_VERSION}")


def decode(raw: bytes, headers: dict | None, limit: int) -> dict[str, Any]:
    """Decode a body: size limit, schema header, msgpack limits, a map with string keys."""
    if len(raw) > limit:
        raise DecodeError("oversize", f"{len(raw)} bytes exceeds the limit of {limit}")
    check_schema(headers)
    try:
        body = msgpack.unpackb(
            raw,
            raw=False,
            strict_map_key=True,
            max_str_len=limit,
            max_bin_len=0,  # no binary anywhere: keys are str only, values JSON-like
            max_array_len=limit // 2,
            max_map_len=limit // 4,
            max_ext_len=0,
            ext_hook=_refuse_ext,
        )
    except DecodeError:
        raise
    except Exception as exc:  # msgpack raises several unrelated types
        raise DecodeError("undecodable", f"{type(exc).__name__}: {exc}") from None
    if not isinstance(body, dict):
        raise DecodeError("invalid", f"body is a {type(body).__name__}, expected a map")
    return body


def pack_map(fields: dict[str, Any], raw: dict[str, bytes]) -> bytes:
    """A map whose `raw` values are already msgpack: an object encoded once serves the log,
    the event and the reply."""
    packer = msgpack.Packer(use_bin_type=True)
    parts = [packer.pack_map_header(len(fields) + len(raw))]
    for key, value in fields.items():
        parts += [packer.pack(key), packer.pack(value)]
    for key, value in raw.items():
        parts += [packer.pack(key), value]
    return b"".join(parts)


def pack_array(raws: list[bytes]) -> bytes:
    return msgpack.Packer(use_bin_type=True).pack_array_header(len(raws)) + b"".join(raws)
