import hashlib

import pytest

from bus import codec
from bus.topology import SCHEMA_VERSION, Names, key_matches, object_key, routing_key, segment


@pytest.mark.parametrize("binding,key,ok", [
    ("pod.#", "pod.default.node-1", True), ("pod.*.node-1", "pod.a.node-1", True),
    ("pod.*.node-1", "pod.a.node-2", False), ("#", "node.-.n", True), ("pod.team-a.*", "pod.team-b.-", False),
    ("#.n1", "pod.a.n1", True), ("pod.#", "podx.a.b", False),
])
def test_topic_matching(binding, key, ok):
    assert key_matches(binding, key) is ok


def test_routing_keys():
    assert routing_key("Pod", "default", "node.7") == "pod.default.node_7"
    assert object_key("Node", {"metadata": {"name": "n1"}}) == "node.-.n1"
    assert object_key("Lease", {"metadata": {"name": "n1", "namespace": "kube-node-lease"}}) == \
        "lease.kube-node-lease.n1"
    assert object_key("Pod", {"metadata": {"namespace": "a"}, "spec": {}}) == "pod.a.-"


def test_codec_round_trip_and_limits():
    body = {"verb": "get", "nested": {"list": [1, "x", None, 2.5]}}
    assert codec.decode(codec.encode(body), {"x-kubus-schema": SCHEMA_VERSION}, 1 << 20) == body
    with pytest.raises(codec.DecodeError) as err:
        codec.decode(codec.encode({"x": "y" * 5000}), {"x-kubus-schema": SCHEMA_VERSION}, 4096)
    assert err.value.reason == "oversize"
    with pytest.raises(codec.DecodeError) as err:
        codec.decode(codec.encode(body), {}, 1 << 20)
    assert err.value.reason == "schema"


LABEL = "a" * 63
NODE_253 = ".".join([LABEL, LABEL, LABEL, "b" * 61])  # the longest DNS subdomain


def _hashed(word: str) -> str:
    return word.encode()[:83].decode(errors="ignore") + "~" + hashlib.blake2b(word.encode()).hexdigest()[:16]


@pytest.mark.parametrize("value,expected", [
    pytest.param("node-7", "node-7", id="short"),
    pytest.param("x" * 100, "x" * 100, id="exactly-100-bytes"),
    pytest.param("x" * 101, _hashed("x" * 101), id="101-bytes"),
    pytest.param("é" * 50, "é" * 50, id="100-bytes-of-two-byte-chars"),
    pytest.param("é" * 51, _hashed("é" * 51), id="multibyte-never-split"),
    pytest.param(NODE_253, _hashed(NODE_253), id="253-char-node"),
    pytest.param("*", "*", id="star"), pytest.param("#", "#", id="hash"),
])
def test_segment(value, expected):
    assert segment(value) == expected
    assert len(segment(value).encode()) <= 100


def test_segment_keeps_83_bytes_and_16_hex_digits():
    short = segment("y" * 300)
    assert short[:84] == "y" * 83 + "~" and len(short) == 100
    assert short[84:] == hashlib.blake2b(("y" * 300).encode()).hexdigest()[:16]
    assert segment("y" * 300) != segment("y" * 299)


def test_long_names_fit_in_keys_and_match_their_bindings():
    key = routing_key("Pod", "n" * 63, NODE_253)
    assert key == f"pod.{'n' * 63}.{segment(NODE_253.replace('.', '_'))}"
    assert len(key.encode()) <= 255
    assert key_matches(routing_key("pod", "*", NODE_253), key)
    assert object_key("Node", {"metadata": {"name": NODE_253}}) == routing_key("node", None, NODE_253)
    assert Names("kubus").kubelet_logs_queue(NODE_253) == f"kubus.kubelet.{segment(NODE_253)}.logs"
    assert len(Names("c" * 63).kubelet_logs_queue(NODE_253).encode()) <= 255
