"""Every kind kubus serves, both ways: an object with every field of every message it reaches set (so
each table entry is written and read back), and a property test (hypothesis) over generated objects of
several kinds: the protobuf of an object, decoded, is the object the JSON path gives."""
from __future__ import annotations

import base64
import json
from datetime import datetime, timezone

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from api import protobuf
from api.protobuf.schema import KINDS, MESSAGES, Field

DEPTH = 8  # deep enough for Deployment → PodTemplateSpec → PodSpec → Container → Probe → HTTPGetAction → …


def stamp(seconds: int, micros: int | None = None) -> str:
    text = datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    return f"{text}.{micros:06d}Z" if micros is not None else f"{text}Z"


FULL = {"s": "text", "i32": -7, "i64": 1 << 40, "b": True, "y": "AQI=", "time": stamp(1704164645),
        "mtime": stamp(1704164645, 250), "qty": "250m", "ios": "http", "raw": {"f:metadata": {}}}


def full(key: str, depth: int = 0):
    """An object of the message with every field set to a value that is not Go's zero."""
    message, out = MESSAGES[key], {}
    for f in message.fields:
        value = _full_value(f, depth)
        if value is None:
            continue
        if f.name == "^":
            out.update(value)
        else:
            out[f.name] = value
    return out.get("items", []) if message.bare_list else out


def _full_value(f: Field, depth: int):
    if f.type in FULL:
        one = FULL[f.type]
    elif depth >= DEPTH:
        return None
    else:
        one = full(f.type, depth + 1)
    return {"k": one} if f.map else [one, one] if f.repeated else one


@pytest.mark.parametrize("api_version, kind", sorted(KINDS))
def test_every_kind_round_trips_with_every_field(api_version, kind):
    obj = {"apiVersion": api_version, "kind": kind, **full(KINDS[(api_version, kind)])}
    assert protobuf.decode_object(protobuf.encode_object(obj)) == obj


# ---- the property -------------------------------------------------------------------------------
def _scalar(kind: str, keep_zero: bool) -> st.SearchStrategy:
    strategies = {"s": st.text(max_size=8), "i32": st.integers(-(1 << 31), (1 << 31) - 1),
                  "i64": st.integers(-(1 << 63), (1 << 63) - 1), "b": st.booleans(),
                  "y": st.binary(min_size=1, max_size=6).map(lambda b: base64.b64encode(b).decode()),
                  "time": st.integers(0, 4_000_000_000).map(stamp),
                  "mtime": st.tuples(st.integers(0, 4_000_000_000), st.integers(0, 999_999)).map(lambda t: stamp(*t)),
                  "qty": st.sampled_from(["0", "1", "100m", "1.5", "2Gi", "64Mi"]),
                  "ios": st.one_of(st.integers(-(1 << 31), (1 << 31) - 1), st.text(max_size=8)),
                  "raw": st.dictionaries(st.text(min_size=1, max_size=6), st.just({}), max_size=2)}
    base = strategies[kind]
    zero = {"s": "", "i32": 0, "i64": 0, "b": False}
    # Go's JSON leaves out an omitempty field's zero, so the JSON path never holds one
    return base if keep_zero or kind not in zero else base.filter(lambda v: v != zero[kind])


def objects(key: str, depth: int = 0) -> st.SearchStrategy:
    message = MESSAGES[key]
    optional, inlined = {}, []
    for f in message.fields:
        if f.name == "^":
            inlined.append(objects(f.type, depth + 1))
        elif f.message and depth >= 4:
            continue
        else:
            optional[f.name] = _field(f, depth)
    found = st.fixed_dictionaries({}, optional=optional)
    if inlined:
        found = st.tuples(found, *inlined).map(lambda parts: {k: v for part in parts[::-1] for k, v in part.items()})
    return found.map(lambda obj: obj.get("items", [])) if message.bare_list else found


def _field(f: Field, depth: int) -> st.SearchStrategy:
    one = objects(f.type, depth + 1) if f.message else _scalar(f.type, f.keep_zero or f.repeated or f.map)
    if f.map:
        return st.dictionaries(st.text(max_size=6), one, min_size=1, max_size=2)
    return st.lists(one, min_size=1, max_size=2) if f.repeated else one


SAMPLED = [("v1", "Pod"), ("apps/v1", "Deployment"), ("v1", "Service"), ("rbac.authorization.k8s.io/v1", "Role"),
           ("networking.k8s.io/v1", "Ingress"), ("discovery.k8s.io/v1", "EndpointSlice"), ("v1", "Event"),
           ("coordination.k8s.io/v1", "Lease"), ("authentication.k8s.io/v1", "TokenReview"), ("v1", "Node")]


@pytest.mark.parametrize("api_version, kind", SAMPLED)
def test_protobuf_then_json_is_the_json_path(api_version, kind):
    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(objects(KINDS[(api_version, kind)]))
    def check(body):
        obj = {"apiVersion": api_version, "kind": kind, **body}
        decoded = protobuf.decode_object(protobuf.encode_object(obj))
        assert json.dumps(decoded, sort_keys=True) == json.dumps(obj, sort_keys=True)
    check()
