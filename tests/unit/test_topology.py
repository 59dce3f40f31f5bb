import pytest

from bus import codec
from bus.topology import key_matches, object_key, routing_key


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
    assert codec.decode(codec.encode(body), {"x-kubus-schema": 1}, 1 << 20) == body
    with pytest.raises(codec.DecodeError) as err:
        codec.decode(codec.encode({"x": "y" * 5000}), {"x-kubus-schema": 1}, 4096)
    assert err.value.reason == "oversize"
    with pytest.raises(codec.DecodeError) as err:
        codec.decode(codec.encode(body), {}, 1 << 20)
    assert err.value.reason == "schema"
