"""Decoding is bounded (contract 2): size, schema, nesting depth, no ext types, string keys, a map."""
import msgpack
import pytest

from bus import codec
from bus.topology import SCHEMA_VERSION

HEADERS = {"x-kubus-schema": SCHEMA_VERSION}
LIMIT = 1 << 20


def nested_maps(levels: int) -> bytes:
    """A body of `levels` maps, each the only value of the one outside it (the body is level 1)."""
    return b"\x81\xa1k" * levels + b"\xc0"


def nested_lists(levels: int) -> bytes:
    """A map body holding `levels - 1` nested lists."""
    return b"\x81\xa1k" + b"\x91" * (levels - 1) + b"\xc0"


def decode(raw: bytes, **kw):
    return codec.decode(raw, HEADERS, LIMIT, **kw)


@pytest.mark.parametrize("raw,max_depth", [
    pytest.param(nested_maps(1000), 100, id="1000-deep-map"),
    pytest.param(nested_lists(1000), 100, id="1000-deep-list"),
    pytest.param(nested_maps(101), 100, id="one-map-too-many"),
    pytest.param(nested_lists(101), 100, id="one-list-too-many"),
    pytest.param(nested_maps(5000), 100, id="deeper-than-msgpack-stack"),
    pytest.param(nested_lists(5000), 10_000, id="msgpack-stack-whatever-the-setting"),
    pytest.param(nested_maps(11), 10, id="setting-honoured"),
])
def test_too_deep_is_refused(raw, max_depth):
    with pytest.raises(codec.DecodeError) as err:
        decode(raw, max_depth=max_depth)
    assert err.value.reason == "too deep"


@pytest.mark.parametrize("raw", [
    pytest.param(nested_maps(100), id="100-maps"),
    pytest.param(nested_lists(100), id="100-levels-with-lists"),
    pytest.param(msgpack.packb({"wide": [[{"a": [1]}] * 50] * 50}), id="wide-but-shallow"),
    pytest.param(msgpack.packb({"s": "é" * 500, "n": [150] * 200}), id="header-bytes-inside-values"),
])
def test_deep_within_limit_passes(raw):
    assert decode(raw) == msgpack.unpackb(raw)


@pytest.mark.parametrize("raw,reason", [
    pytest.param(b"\x81\xa1k\xa2\xff\xfe", "undecodable", id="bad-utf8-value"),
    pytest.param(b"\x81\xa2\xc3\x28\x01", "undecodable", id="bad-utf8-key"),
    pytest.param(msgpack.packb({"x": msgpack.ExtType(5, b"x")}), "undecodable", id="ext-type"),
    pytest.param(msgpack.packb({"x": b"bytes"}, use_bin_type=True), "undecodable", id="binary"),
    pytest.param(msgpack.packb({1: "int key"}), "undecodable", id="int-key"),
    pytest.param(msgpack.packb({"a": {(1, 2): "x"}}), "undecodable", id="array-key"),
    pytest.param(msgpack.packb([1, 2, 3]), "invalid", id="list-body"),
    pytest.param(msgpack.packb("text"), "invalid", id="string-body"),
    pytest.param(b"\xc1", "undecodable", id="reserved-byte"),
    pytest.param(b"\x82\xa1k", "undecodable", id="truncated"),
])
def test_malformed_bodies_are_refused(raw, reason):
    with pytest.raises(codec.DecodeError) as err:
        decode(raw)
    assert err.value.reason == reason


def test_depth_check_walks_without_recursion():
    body: dict = {}
    inner = body
    for _ in range(100_000):  # far deeper than Python's recursion limit
        inner["k"] = inner = {}
    with pytest.raises(codec.DecodeError, match="too deep"):
        codec.check_depth(body, 100)


def _batch(items: list[bytes]) -> bytes:
    return codec.pack_array(items)


def test_a_batch_of_shallow_items_is_not_walked(monkeypatch):
    """Forty maps of three levels hold more container headers than the limit, each far fewer: each
    item's own bytes bound its depth, and the body is not walked."""
    monkeypatch.setattr(codec, "check_depth", lambda *_: pytest.fail("walked"))
    items = [msgpack.packb({"a": {"b": {"c": i}}}) for i in range(40)]
    assert decode(_batch(items), batch=True, max_depth=10) == [msgpack.unpackb(i) for i in items]


@pytest.mark.parametrize("where", [0, 20, 39])
def test_one_deep_item_in_a_batch_is_refused(where):
    items = [msgpack.packb({"a": {"b": i}}) for i in range(40)]
    items[where] = nested_maps(13)  # the batch list adds one level, the envelope allowance two
    with pytest.raises(codec.DecodeError, match="too deep"):
        decode(_batch(items), batch=True, max_depth=10)
