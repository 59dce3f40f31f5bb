"""A list's items are encoded once per stored version: the bytes are what encoding the whole list
gives, and a new version of an item is encoded anew."""
from api import protobuf
from api.protobuf import codec, envelope
from api.protobuf.schema import kind_message


def _pod(name: str, version: str, image: str = "nginx") -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "resourceVersion": version},
            "spec": {"containers": [{"name": "c", "image": image}]}, "status": {"phase": "Pending"}}


def _list(*pods) -> dict:
    return {"apiVersion": "v1", "kind": "PodList", "metadata": {"resourceVersion": "9"}, "items": list(pods)}


def test_the_bytes_are_those_of_the_whole_list_and_read_back():
    listed = _list(_pod("a", "1"), _pod("b", "2"))
    whole = codec.encode(kind_message("v1", "PodList"), listed)
    encoded = protobuf.encode_object(listed)
    assert whole in encoded
    assert protobuf.decode_object(encoded)["items"][1]["metadata"]["name"] == "b"


def test_an_item_is_encoded_once_per_version():
    protobuf.encode_object(_list(_pod("c", "5")))
    key = ("core.Pod", "uid-c", "5")
    assert key in envelope.ENCODED
    envelope.ENCODED[key] = codec.encode(kind_message("v1", "Pod"), _pod("c", "5", image="cached"))
    again = protobuf.decode_object(protobuf.encode_object(_list(_pod("c", "5"))))
    assert again["items"][0]["spec"]["containers"][0]["image"] == "cached"  # served from the cache
    newer = protobuf.decode_object(protobuf.encode_object(_list(_pod("c", "6", image="busybox"))))
    assert newer["items"][0]["spec"]["containers"][0]["image"] == "busybox"


def test_an_item_without_a_stored_version_is_not_cached():
    pod = _pod("d", "")
    protobuf.encode_object(_list(pod))
    assert not [k for k in envelope.ENCODED if k[1] == "uid-d"]
