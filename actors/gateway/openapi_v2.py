"""`/openapi/v2` as kubectl <= 1.27 asks for it: gnostic's openapi_v2.Document in protobuf, with
the version and title and no paths or definitions — enough for `kubectl diff` and `apply` to go on
(they build strategic patches from their compiled-in types for every kind kubus serves); the full
Swagger document is served as JSON (api/openapi.swagger) to clients that ask for JSON."""
from __future__ import annotations

from functools import lru_cache

from api.protobuf.wire import field

ASKED = "com.github.proto-openapi.spec.v2"  # kubectl asks for `…spec.v2@v1.0+protobuf`
PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"  # kube-openapi answers this (Go's
# mime parser refuses the `@` of the name asked for)


@lru_cache(maxsize=1)
def encoded() -> bytes:
    info = field(1, b"Kubernetes") + field(2, b"v1.35.4-kubus")  # Info: title, version
    return field(1, b"2.0") + field(2, info) + field(8, b"") + field(9, b"")  # swagger, info, paths, definitions
