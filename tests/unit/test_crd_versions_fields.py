"""Custom kinds' versions (kube-aware order, deprecation warnings, any served version admitted and stored
as the storage version), list-type duplicates, unknown fields and selectable fields, with Kubernetes' messages."""
from __future__ import annotations

import copy

import pytest

from api import admission, customkinds, customobjects
from api.crdschema.listtypes import list_causes
from api.crdversions import deprecation, ordered
from api.fieldselectors import parse_fields
from api.status import StatusError
from tests.crds import served_crd, widget, widget_crd


def two_versions(**beta) -> dict:
    crd = widget_crd()
    v1 = crd["spec"]["versions"][0]
    v1beta1 = {**copy.deepcopy(v1), "name": "v1beta1", "storage": False, "deprecated": True, **beta}
    v1["selectableFields"] = [{"jsonPath": ".spec.color"}]
    crd["spec"]["versions"] = [v1beta1, v1]
    return crd


@pytest.fixture
def widgets():
    crd = served_crd(two_versions())
    customkinds.observe(crd)
    yield customkinds.custom("Widget")
    customkinds.forget(crd)


def test_versions_in_kubernetes_order():
    assert ordered("foo10 v1 foo1 v11alpha2 v10beta3 v12alpha1 v2 v3beta1 v11beta2 v10".split()) == \
        "v10 v2 v1 v11beta2 v10beta3 v3beta1 v12alpha1 v11alpha2 foo1 foo10".split()


@pytest.mark.parametrize("beta, expected", [
    ({}, "example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget"),
    ({"deprecationWarning": "use v1, please"}, "use v1, please"),
    ({"deprecated": False}, None),
])
def test_deprecation_warnings(beta, expected):
    assert deprecation(two_versions(**beta), "v1beta1") == expected


def test_no_newer_version_no_hint():
    crd = two_versions()
    crd["spec"]["versions"][1]["deprecated"] = True
    assert deprecation(crd, "v1") == "example.com/v1 Widget is deprecated"


def test_an_object_sent_in_a_served_version_is_stored_in_the_storage_version(widgets):
    assert widgets.versions == ("v1", "v1beta1")
    admitted = admission.admit("Widget", {**widget("w"), "apiVersion": "example.com/v1beta1"}, "default")
    assert admitted["apiVersion"] == "example.com/v1" and admitted["spec"]["replicas"] == 1
    with pytest.raises(StatusError) as caught:
        admission.admit("Widget", {**widget("w"), "apiVersion": "example.com/v2"}, "default")
    assert caught.value.code == 400


@pytest.mark.parametrize("value, schema, expected", [
    ({"tags": ["a", "b", "a", "a"]}, {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
     ['spec.tags[2]: Duplicate value: "a"']),
    ({"tags": [1, 2, 1]}, {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "integer"}},
     ["spec.tags[2]: Duplicate value: 1"]),
    ({"tags": ["a", "a"]}, {"type": "array", "items": {"type": "string"}}, []),  # atomic: duplicates allowed
    ({"tags": [{"name": "x", "v": 1}, {"name": "x", "v": 2}]},
     {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"], "items": {
         "type": "object", "properties": {"name": {"type": "string"}, "v": {"type": "integer"}}}},
     ['spec.tags[1]: Duplicate value: map[string]interface {}{"name":"x"}']),
    ({"tags": [{"name": "x", "port": 80}, {"name": "x", "port": 81}, {"name": "x", "port": 80}]},
     {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "port"],
      "items": {"type": "object"}},
     ['spec.tags[2]: Duplicate value: map[string]interface {}{"name":"x", "port":80}']),
])
def test_list_type_duplicates(value, schema, expected):
    root = {"type": "object", "properties": {"spec": {"type": "object", "properties": {"tags": schema}}}}
    assert [f"{c.field}: {c.message}" for c in list_causes({"spec": value}, root)] == expected


def test_unknown_fields_are_what_pruning_drops(widgets):
    body = {**widget("w", bogus=1), "extra": {"a": 1}}
    body["metadata"]["nope"] = True
    assert customobjects.unknown_fields(widgets, body) == [
        'unknown field "metadata.nope"', 'unknown field "spec.bogus"', 'unknown field "extra"']


@pytest.mark.parametrize("selector, refused", [
    ("metadata.name=w", None), ("metadata.namespace=default", None), ("spec.color=red", None),
    ("spec.size=small", "field label not supported: spec.size"),
])
def test_selectable_fields(widgets, selector, refused):
    if refused is None:
        customobjects.check_fields(widgets, parse_fields(selector))
        return
    with pytest.raises(StatusError) as caught:
        customobjects.check_fields(widgets, parse_fields(selector))
    assert (caught.value.code, caught.value.message) == (400, refused)
