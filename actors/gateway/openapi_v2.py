"""`/openapi/v2` as kubectl <= 1.27 asks for it: gnostic's openapi_v2.Document in protobuf, with
the version and title and no paths or definitions — enough for `kubectl diff` and `apply` to go on
(they build strategic patches from their compiled-in types for every kind kubus serves); the full
Swagger document is served as JSON (api/openapi.swagger) to clients that ask for JSON."""
from __future__ import annotations

from functools import lru_cache

ASKED = "com.github.proto-openapi.spec.v2"  # kubectl asks for `…spec.v2@v1.0+protobuf`
PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"  # kube-openapi answers this (Go's
# mime parser refuses the `@` of the name asked for)


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (strings and messages alike)."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


@lru_cache(maxsize=1)
def encoded() -> bytes:
    info = _field(1, b"Kubernetes") + _field(2, b"v1.35.4-kubus")  # Info: title, version
    return _field(1, b"2.0") + _field(2, info) + _field(8, b"") + _field(9, b"")  # swagger, info, paths, definitions
