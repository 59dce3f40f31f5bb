"""Kubernetes' protobuf envelope: `k8s\\0` then a runtime.Unknown{typeMeta=1{apiVersion=1, kind=2},
raw=2, contentEncoding=3, contentType=4} whose raw is the kind's message; and the frames of a watch
(`;stream=watch`): as apimachinery's streaming protobuf serializer writes them, each a 4-byte
big-endian length, then a WatchEvent{type=1, object=2 RawExtension{raw=1}} with no envelope of its
own (the raw serializer), whose object is the enveloped object."""
from __future__ import annotations

from api.protobuf import codec, wire
from api.protobuf.codec import MAGIC
from api.protobuf.schema import kind_message
from api.status import StatusError

MEDIA_TYPE = "application/vnd.kubernetes.protobuf"


def unsupported(kind: str) -> StatusError:
    return StatusError("UnsupportedMediaType",
                       f"the body of a {kind or 'request'} as {MEDIA_TYPE} is not "
                       f"supported: send JSON (kubectl apply -f / create -f, or an older kubectl)")


def decode_object(raw: bytes) -> dict:
    """The JSON object of an enveloped protobuf body; 415 for a kind kubus does not serve."""
    if not raw.startswith(MAGIC):
        raise StatusError("BadRequest", "a protobuf body must start with the k8s envelope")
    unknown = _strings(raw[len(MAGIC):])
    type_meta, inner, encoding = (unknown.get(n, b"") for n in (1, 2, 3))
    if encoding:
        raise StatusError("BadRequest", f"a protobuf body in content encoding {encoding.decode(errors='replace')!r}: "
                                        f"send it unencoded")
    names = _strings(type_meta)
    api_version, kind = (names.get(n, b"").decode("utf-8", "replace") for n in (1, 2))
    message = kind_message(api_version, kind)
    if message is None:
        raise unsupported(kind)
    return {"apiVersion": api_version, "kind": kind, **codec.decode(message, inner)}


def _strings(data: bytes) -> dict[int, bytes]:
    return {number: value for number, _, value in wire.walk(data) if isinstance(value, bytes)}


def encodable(obj: dict) -> bool:
    return kind_message(obj.get("apiVersion", ""), obj.get("kind", "")) is not None


def encode_object(obj: dict) -> bytes:
    """An object of a kind the tables hold, enveloped (check `encodable` first)."""
    api_version, kind = obj.get("apiVersion", ""), obj.get("kind", "")
    message = kind_message(api_version, kind)
    if message is None:
        raise ValueError(f"no protobuf message for {api_version} {kind}")
    type_meta = wire.field(1, api_version.encode()) + wire.field(2, kind.encode())
    items = message.by_name.get("items") if kind.endswith("List") else None
    raw = _list(message, items, obj) if items is not None and not message.bare_list else codec.encode(message, obj)
    unknown = wire.field(1, type_meta) + wire.field(2, raw) + wire.field(3, b"") + wire.field(4, b"")
    return MAGIC + unknown


# A stored object's message, by (message, uid, resourceVersion): a list read again and again (an
# informer's relist, `kubectl get`) encodes only what changed since. Only a list's items, which are
# read from storage: a dry run's answer carries the version it was sent with, not its own.
ENCODED: dict[tuple[str, str, str], bytes] = {}
ENCODED_MAX = 20_000


def _list(message, items, obj: dict) -> bytes:
    """The list's metadata (field 1), then its items (field 2), in field-number order."""
    out = bytearray(codec.encode(message, {k: v for k, v in obj.items() if k != "items"}))
    item_message = codec.MESSAGES[items.type]
    for item in obj.get("items") or ():
        data = _item(item_message, item)
        out += items.key
        out += wire.varint(len(data))
        out += data
    return bytes(out)


def _item(message, item: dict) -> bytes:
    meta = item.get("metadata") or {}
    uid, version = meta.get("uid"), meta.get("resourceVersion")
    if not uid or not version:
        return codec.encode(message, item)
    key = (message.key, uid, version)
    data = ENCODED.get(key)
    if data is None:
        data = ENCODED[key] = codec.encode(message, item)
        if len(ENCODED) > ENCODED_MAX:
            del ENCODED[next(iter(ENCODED))]  # the oldest entry
    return data


def watch_frame(event_type: str, obj: dict) -> bytes:
    event = wire.field(1, event_type.encode()) + wire.field(2, wire.field(1, encode_object(obj)))
    return len(event).to_bytes(4, "big") + event


def read_frames(stream: bytes) -> list[dict]:
    """The events of a protobuf watch stream: [{"type": …, "object": …}] (a client's reading)."""
    events, i = [], 0
    while i + 4 <= len(stream):
        size = int.from_bytes(stream[i:i + 4], "big")
        event = _strings(stream[i + 4:i + 4 + size])
        raw = _strings(event.get(2, b"")).get(1, b"")
        events.append({"type": event.get(1, b"").decode(), "object": decode_object(raw)})
        i += 4 + size
    return events
