"""One message between its protobuf bytes and its JSON object, by the schema's tables. Decoding keeps
proto2's presence (a field absent on the wire is absent from the object; a present zero is present),
then leaves out the zero scalars Go's JSON writer leaves out (`omitempty` on a non-pointer field), so
a body decodes to the object the same client would have sent as JSON."""
from __future__ import annotations

import base64
import json
from datetime import datetime, timezone
from functools import lru_cache
from operator import attrgetter

from api.protobuf import wire
from api.protobuf.schema import MESSAGES, ZERO, Field, Message
from api.status import StatusError

MAGIC = b"k8s\x00"  # what starts an enveloped object (envelope.py)
GO_ZERO_TIME = -62135596800  # 0001-01-01T00:00:00Z, Go's zero time: JSON null


# ---- decoding ------------------------------------------------------------------------------------
def decode(message: Message, data: bytes) -> dict | list:
    out: dict = {}
    by_number = message.by_number
    for number, wire_type, value in wire.walk(data):
        f = by_number.get(number)
        if f is None:
            continue  # a field this kubus does not know: skipped, as protobuf does
        if f.map:
            key, item = _entry(f, value)
            out.setdefault(f.name, {})[key] = item
        elif f.repeated:
            items = out.setdefault(f.name, [])
            if wire_type == wire.BYTES and f.type in ("i32", "i64", "b"):
                items.extend(_scalar(f.type, v) for v in wire.packed(value))
            else:
                items.append(_value(f.type, value))
        elif f.name == "^":
            out.update(decode(MESSAGES[f.type], _bytes(value)))
        else:
            out[f.name] = _value(f.type, value)
    for f in message.fields:
        if f.scalar and not (f.keep_zero or f.repeated or f.map) and out.get(f.name, 1) == ZERO[f.type]:
            del out[f.name]
    return out.get("items", []) if message.bare_list else out


def _value(kind: str, value):
    if kind == "s":
        return _bytes(value).decode("utf-8", "replace")
    if kind in ("i32", "i64", "b"):
        return _scalar(kind, value)
    if kind == "y":
        return base64.b64encode(_bytes(value)).decode()
    data = _bytes(value)
    if kind in ("time", "mtime"):
        return _time(data, kind == "mtime")
    if kind == "qty":
        return _text(data, 1)
    if kind == "ios":
        return _int_or_string(data)
    if kind == "raw":
        return _raw(data)
    return decode(MESSAGES[kind], data)


def _scalar(kind: str, value):
    if not isinstance(value, int):
        raise StatusError("BadRequest", "a protobuf number sent as bytes")
    return wire.int32(value) if kind == "i32" else wire.int64(value) if kind == "i64" else bool(value)


def _bytes(value) -> bytes:
    if not isinstance(value, bytes):
        raise StatusError("BadRequest", "a protobuf message or string sent as a number")
    return value


def _fields(data: bytes) -> dict[int, int | bytes]:
    return {number: value for number, _, value in wire.walk(data)}


def _text(data: bytes, number: int) -> str:
    value = _fields(data).get(number, b"")
    return _bytes(value).decode("utf-8", "replace")


def _time(data: bytes, micro: bool) -> str | None:
    f = _fields(data)
    seconds, nanos = wire.int64(f.get(1, 0)), wire.int32(f.get(2, 0))
    if seconds == GO_ZERO_TIME and not nanos:
        return None
    stamp = datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{stamp}.{nanos // 1000:06d}Z" if micro else f"{stamp}Z"


def _int_or_string(data: bytes):
    f = _fields(data)
    if f.get(1, 0) == 1:
        return _bytes(f.get(3, b"")).decode("utf-8", "replace")
    return wire.int32(f.get(2, 0))


def _raw(data: bytes):
    raw = _bytes(_fields(data).get(1, b""))
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        raise StatusError("BadRequest", "a protobuf RawExtension whose raw is not JSON") from None


def _entry(f: Field, value) -> tuple[str, object]:
    key, item = "", None
    for number, _, v in wire.walk(_bytes(value)):
        if number == 1:
            key = _bytes(v).decode("utf-8", "replace")
        elif number == 2:
            item = _value(f.type, v)
    return key, ZERO.get(f.type) if item is None and f.scalar else item


# ---- encoding ------------------------------------------------------------------------------------
def encode(message: Message, obj: dict | list) -> bytes:
    out = bytearray()
    _encode_into(out, message, obj)
    return bytes(out)


def _encode_into(out: bytearray, message: Message, obj: dict | list) -> None:
    """The object's own fields (fewer than its message's), in field-number order as Go writes them."""
    if message.bare_list:
        obj = {"items": obj}
    by_name = message.by_name
    present = [by_name[name] for name in obj if name in by_name]
    if message.inlined:
        present += message.inlined
    present.sort(key=NUMBER)
    for f in present:
        if f.name == "^":
            _nested(out, f.key, MESSAGES[f.type], obj)
            continue
        value = obj[f.name]
        if value is None:
            continue
        if f.map:
            for key in sorted(value):
                entry = bytearray(wire.field(1, str(key).encode()))
                _one(entry, ENTRY_VALUE, f.type, value[key])
                out += f.key
                out += wire.varint(len(entry))
                out += entry
        elif f.repeated:
            for item in value:
                _one(out, f.key, f.type, item)
        else:
            _one(out, f.key, f.type, value)


ENTRY_VALUE = wire.varint(2 << 3 | wire.BYTES)
VARINTS = frozenset({"i32", "i64", "b"})
NUMBER = attrgetter("number")
BYTE = [bytes((n,)) for n in range(0x80)]  # a length under 128 is its own one-byte varint


def _one(out: bytearray, key: bytes, kind: str, value) -> None:
    if kind == "s":
        data = value.encode() if type(value) is str else str(value).encode()
    elif kind in VARINTS:
        out += key  # a map's varint value would need its own key: none in the tables
        out += wire.varint(int(value))
        return
    elif kind in PAYLOADS:
        data = PAYLOADS[kind](value)
    else:
        _nested(out, key, MESSAGES[kind], value)
        return
    out += key
    n = len(data)
    out += BYTE[n] if n < 0x80 else wire.varint(n)
    out += data


def _nested(out: bytearray, key: bytes, message: Message, value) -> None:
    inner = bytearray()
    _encode_into(inner, message, value)
    out += key
    n = len(inner)
    out += BYTE[n] if n < 0x80 else wire.varint(n)
    out += inner


@lru_cache(maxsize=4096)
def _stamp(text: str) -> bytes:
    moment = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    seconds = int(moment.replace(microsecond=0).timestamp())
    return wire.field(1, seconds) + (wire.field(2, moment.microsecond * 1000) if moment.microsecond else b"")


def _int_or_string_payload(value) -> bytes:
    if isinstance(value, str):
        return wire.field(1, 1) + wire.field(2, 0) + wire.field(3, value.encode())
    return wire.field(1, 0) + wire.field(2, int(value)) + wire.field(3, b"")


PAYLOADS = {"y": base64.b64decode, "time": lambda v: _stamp(str(v)), "mtime": lambda v: _stamp(str(v)),
            "qty": lambda v: wire.field(1, str(v).encode()), "ios": _int_or_string_payload,
            "raw": lambda v: wire.field(1, json.dumps(v, separators=(",", ":")).encode())}
