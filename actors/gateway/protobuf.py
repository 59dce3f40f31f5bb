"""The few protobuf bodies kubectl >= 1.32 sends with no JSON fallback (client-go's typed clients):
DeleteOptions (`kubectl delete`), an Eviction (`kubectl drain`), SelfSubjectAccessReview (`kubectl auth can-i`) and a
Namespace (`kubectl create namespace`). The wire format is read by hand (varints and
length-delimited fields, field numbers from k8s.io/api's generated.proto); any other kind is 415.
The same wire format is written for `/openapi/v2`."""
from __future__ import annotations

from typing import Iterator

from api.status import StatusError

MAGIC = b"k8s\x00"
Fields = dict[int, list]


def unsupported(kind: str) -> StatusError:
    return StatusError("UnsupportedMediaType",
                       f"the body of a {kind or 'request'} as application/vnd.kubernetes.protobuf is not "
                       f"supported: send JSON (kubectl apply -f / create -f, or an older kubectl)")


def decode(raw: bytes) -> dict:
    """The JSON form of a protobuf `runtime.Unknown` envelope holding one of the kinds above."""
    if not raw.startswith(MAGIC):
        raise StatusError("BadRequest", "a protobuf body must start with the k8s envelope")
    envelope = _fields(raw[len(MAGIC):])
    type_meta = _fields(_one(envelope, 1, b""))
    api_version, kind = _text(type_meta, 1), _text(type_meta, 2)
    inner = _fields(_one(envelope, 2, b""))
    decoder = DECODERS.get(kind)
    if decoder is None:
        raise unsupported(kind)
    return {"apiVersion": api_version, "kind": kind, **decoder(inner)}


def _delete_options(f: Fields) -> dict:
    out: dict = {}
    if 1 in f:
        out["gracePeriodSeconds"] = _signed(f[1][-1])
    if 2 in f:
        pre = _fields(f[2][-1])
        out["preconditions"] = {k: v for k, v in (("uid", _text(pre, 1)), ("resourceVersion", _text(pre, 2))) if v}
    if 3 in f:
        out["orphanDependents"] = bool(f[3][-1])
    if 4 in f:
        out["propagationPolicy"] = _text(f, 4)
    if 5 in f:
        out["dryRun"] = [v.decode() for v in f[5]]
    return out


def _access_review(f: Fields) -> dict:
    spec = _fields(_one(f, 2, b""))
    out: dict = {}
    if 1 in spec:
        ra = _fields(spec[1][-1])
        names = ("namespace", "verb", "group", "version", "resource", "subresource", "name")
        out["resourceAttributes"] = {n: _text(ra, i) for i, n in enumerate(names, 1) if _text(ra, i)}
    if 2 in spec:
        nra = _fields(spec[2][-1])
        out["nonResourceAttributes"] = {"path": _text(nra, 1), "verb": _text(nra, 2)}
    return {"metadata": {}, "spec": out}


def _namespace(f: Fields) -> dict:
    meta = _fields(_one(f, 1, b""))
    out: dict = {k: _text(meta, i) for k, i in (("name", 1), ("generateName", 2)) if _text(meta, i)}
    for key, number in (("labels", 11), ("annotations", 12)):
        if number in meta:
            out[key] = dict(_entry(e) for e in meta[number])
    return {"metadata": out}


def _eviction(f: Fields) -> dict:
    meta = _fields(_one(f, 1, b""))
    out: dict = {"metadata": {k: _text(meta, i) for k, i in (("name", 1), ("namespace", 3)) if _text(meta, i)}}
    if 2 in f:
        out["deleteOptions"] = _delete_options(_fields(f[2][-1]))
    return out


DECODERS = {"DeleteOptions": _delete_options, "SelfSubjectAccessReview": _access_review, "Namespace": _namespace,
            "Eviction": _eviction}


# ---- the wire format ------------------------------------------------------------------------------
def _fields(data: bytes) -> Fields:
    out: Fields = {}
    for number, value in _walk(data):
        out.setdefault(number, []).append(value)
    return out


def _walk(data: bytes) -> Iterator[tuple[int, int | bytes]]:
    i = 0
    while i < len(data):
        key, i = _varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(data, i)
        elif wire == 2:
            size, i = _varint(data, i)
            value, i = data[i:i + size], i + size
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            value, i = int.from_bytes(data[i:i + width], "little"), i + width
        else:
            raise StatusError("BadRequest", f"unsupported protobuf wire type {wire}")
        yield number, value


def _varint(data: bytes, i: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if i >= len(data) or shift > 63:
            raise StatusError("BadRequest", "a truncated protobuf body")
        byte = data[i]
        value |= (byte & 0x7F) << shift
        i, shift = i + 1, shift + 7
        if not byte & 0x80:
            return value, i


def _one(f: Fields, number: int, default):
    return f[number][-1] if number in f else default


def _text(f: Fields, number: int) -> str:
    value = _one(f, number, b"")
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else ""


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _entry(data: bytes) -> tuple[str, str]:
    f = _fields(data)
    return _text(f, 1), _text(f, 2)


# ---- writing (the `/openapi/v2` document; tests build bodies with it) ------------------------------
def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number: int, value: bytes | int) -> bytes:
    """One field: an int as a varint, bytes (a string or a message) length-delimited."""
    if isinstance(value, int):
        return varint(number << 3) + varint(value)
    return varint(number << 3 | 2) + varint(len(value)) + value
