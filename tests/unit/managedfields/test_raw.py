"""The `fieldsV1` codec (api/managedfields/raw.py): the text Kubernetes sends, maps packed as the bus
carries them, texts expanded as clients read them, each object left as it was; and its users — the
entries `encode` makes, `decode` reading texts and maps alike, a JSON patch into a tree."""
from __future__ import annotations

import copy

import msgpack
import pytest

from api.managedfields import managers, paths, raw, shape
from api.managedfields.managers import UPDATE, Entry
from api.patch.jsonpatch import apply_json_patch

F = paths.field
TREE = {"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
        "f:spec": {"f:containers": {'k:{"name":"app"}': {".": {}, "f:image": {}, "f:name": {}}}}}
TEXT = '{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"app\\"}":' \
       '{".":{},"f:image":{},"f:name":{}}}}}'


def entry(value) -> dict:
    return {"manager": "m", "operation": "Update", "apiVersion": "v1", "time": "t", "fieldsType": "FieldsV1",
            "fieldsV1": value}


def obj(*entries) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "managedFields": list(entries)}}


def test_pack_is_the_compact_json_kubernetes_sends_and_unpack_reads_it_back():
    assert raw.pack(TREE) == TEXT
    assert raw.unpack(TEXT) == TREE
    assert msgpack.unpackb(msgpack.packb(entry(TEXT), use_bin_type=True), raw=False)["fieldsV1"] == TEXT  # one str


@pytest.mark.parametrize("value, tree", [
    pytest.param(TREE, TREE, id="a-map-is-the-tree"),
    pytest.param("{not json", None, id="not-json"),
    pytest.param('"a string"', "a string", id="text-of-a-string"),
    pytest.param(None, None, id="absent"),
])
def test_unpack(value, tree):
    assert raw.unpack(value) == tree


def test_unpack_shares_one_tree_per_text():
    assert raw.unpack(TEXT) is raw.unpack("".join(list(TEXT)))  # an equal text decoded again: the same tree


@pytest.mark.parametrize("sent_as_json, expected", [
    pytest.param(False, [TEXT, TEXT, None], id="bus-form-texts-kept"),
    pytest.param(True, [TEXT, raw.pack(TEXT), None], id="client-json-every-value-is-the-tree"),
])
def test_packed(sent_as_json, expected):
    entries = [entry(TREE), entry(TEXT), {"manager": "no-fields"}]
    before = copy.deepcopy(entries)
    out = raw.packed(entries, sent_as_json)
    assert [e.get("fieldsV1") for e in out] == expected
    assert entries == before  # the input is not changed


@pytest.mark.parametrize("value", [pytest.param("all", id="not-a-list"), pytest.param([1, "x"], id="not-maps")])
def test_packed_leaves_what_is_not_entries(value):
    assert raw.packed(value) == value


def test_packed_list_is_the_same_list_when_all_are_texts():
    entries = [entry(TEXT)]
    assert raw.packed(entries) is entries


def test_expanded_copies_top_and_metadata_only():
    packed = obj(entry(TEXT), entry(None))
    before = copy.deepcopy(packed)
    out = raw.expanded(packed)
    assert [e["fieldsV1"] for e in out["metadata"]["managedFields"]] == [TREE, None]
    assert packed == before
    plain = obj(entry(TREE))
    assert raw.expanded(plain) is plain and raw.expanded({"metadata": []}) == {"metadata": []}


def test_packed_object_and_expanded_round_trip():
    sent = obj(entry(TREE))
    carried = raw.packed_object(sent, sent_as_json=True)
    assert carried["metadata"]["managedFields"][0]["fieldsV1"] == TEXT
    assert raw.expanded(carried) == sent


def test_encode_packs_and_decode_reads_texts_and_maps():
    pod = {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "app", "image": "i"}]}}
    entries = managers.update([], None, pod, shape.of_kind("Pod"), Entry("m", UPDATE, "v1", "t", frozenset()))
    encoded = managers.encode(entries)
    assert isinstance(encoded[0]["fieldsV1"], str)
    assert raw.unpack(encoded[0]["fieldsV1"]) == paths.encode(set(entries[0].fields))
    as_maps = raw.expanded({"metadata": {"managedFields": encoded}})
    assert managers.decode({"metadata": {"managedFields": encoded}}) == managers.decode(as_maps) == entries


def test_a_json_patch_into_a_tree_applies_to_the_expanded_object_and_keeps_the_shared_tree():
    patched = apply_json_patch(obj(entry(TEXT)), [
        {"op": "test", "path": "/metadata/managedFields/0/fieldsV1/f:metadata/f:labels/f:app", "value": {}},
        {"op": "add", "path": "/metadata/managedFields/0/fieldsV1/f:data", "value": {}}])
    assert patched["metadata"]["managedFields"][0]["fieldsV1"] == {**TREE, "f:data": {}}
    assert raw.unpack(TEXT) == TREE  # the decoded text others share was not changed
    untouched = apply_json_patch(obj(entry(TEXT)), [{"op": "add", "path": "/metadata/labels", "value": {}}])
    assert untouched["metadata"]["managedFields"][0]["fieldsV1"] == TEXT
