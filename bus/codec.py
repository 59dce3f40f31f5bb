"""Bounded msgpack encoding and decoding of message bodies (contract 2)."""
from __future__ import annotations

from typing import Any

import msgpack

from bus.topology import SCHEMA_HEADER, SCHEMA_VERSION

MAX_DEPTH = 100  # maps and lists nested in a body, the body itself included
ENVELOPE_LEVELS = 2  # what a batch (list, envelope) or a list reply (map, items) adds around an object
_NESTED = (dict, list)
# Every map or list starts with one of these bytes (fixmap, fixarray, array 16/32, map 16/32), so
# their count in a body bounds how many containers, hence how many levels, it can hold.
_HEADERS = bytes([*range(0x80, 0xA0), 0xDC, 0xDD, 0xDE, 0xDF])
_MARK_HEADERS = bytes.maketrans(bytes(range(256)), bytes(int(b in _HEADERS) for b in range(256)))


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


def decode(raw: bytes, headers: dict | None, limit: int, max_depth: int = MAX_DEPTH,
           batch: bool = False, binary: bool = False) -> dict[str, Any] | list[dict[str, Any]]:
    """Decode a body: size limit, schema header, msgpack limits, nesting depth, a map with
    string keys — or, with `batch` (wire v2 event and command batches), a map or a list of maps.
    Binary values only with `binary` (a stream session's frames: runtime/streams.py)."""
    if len(raw) > limit:
        raise DecodeError("oversize", f"{len(raw)} bytes exceeds the limit of {limit}")
    check_schema(headers)
    body = _unpack(raw, limit, binary)
    if not isinstance(body, dict) and not (batch and _list_of_maps(body)):
        expected = "a map or a non-empty list of maps" if batch else "a map"
        raise DecodeError("invalid", f"body is a {type(body).__name__}, expected {expected}")
    if batch:  # an object admitted at max_depth travels two levels deeper in a batch or a list reply
        max_depth += ENVELOPE_LEVELS
    marks = raw.translate(_MARK_HEADERS)  # 1 where a header byte is: ~1 us for a pod, the walk costs ~10
    if marks.count(1) > max_depth and not (isinstance(body, list) and _items_within(raw, marks, max_depth - 1)):
        check_depth(body, max_depth)
    return body


def _items_within(raw: bytes, marks: bytes, max_depth: int) -> bool:
    """Whether each item of a list (a batch of 32 commands has more headers than the limit, an item
    a fraction of it) has no more headers than `max_depth`: each item's own bytes bound its depth."""
    items = msgpack.Unpacker(max_buffer_size=len(raw))
    items.feed(raw)
    count = items.read_array_header()
    start = items.tell()
    for _ in range(count):
        items.skip()
        end = items.tell()
        if marks.count(1, start, end) > max_depth:
            return False
        start = end
    return True


def _list_of_maps(body: Any) -> bool:
    return isinstance(body, list) and bool(body) and all(isinstance(item, dict) for item in body)


def _unpack(raw: bytes, limit: int, binary: bool = False) -> Any:
    try:
        return msgpack.unpackb(
            raw,
            raw=False,
            strict_map_key=True,
            max_str_len=limit,
            max_bin_len=limit if binary else 0,  # no binary but a stream's data: values JSON-like
            max_array_len=limit // 2,
            max_map_len=limit // 4,
            max_ext_len=0,
            ext_hook=_refuse_ext,
        )
    except DecodeError:
        raise
    except msgpack.StackError:  # msgpack's own C stack ends at 1024 levels
        raise DecodeError("too deep", "nested deeper than msgpack's stack allows") from None
    except Exception as exc:  # msgpack raises several unrelated types
        raise DecodeError("undecodable", f"{type(exc).__name__}: {exc}") from None


def check_depth(body: dict | list, max_depth: int) -> None:
    """Refuse maps and lists nested deeper than `max_depth`: one level at a time, no recursion,
    so a hostile body costs a loop, not the stack."""
    level, depth = [body], 1
    while level:
        if depth > max_depth:
            raise DecodeError("too deep", f"maps and lists nested deeper than {max_depth}")
        level = [v for node in level for v in (node.values() if type(node) is dict else node)
                 if type(v) in _NESTED]
        depth += 1


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
