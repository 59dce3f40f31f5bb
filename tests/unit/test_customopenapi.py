"""OpenAPI v3 (and v2) of the custom kinds, as kubectl explain and its validation read them: one document per
served version, the kind schema with apiVersion/kind/metadata and its group-version-kind, refs that resolve,
the index following the served CRDs."""
from __future__ import annotations

import json

import pytest

from api import customkinds, openapi
from api.customopenapi import model_name
from tests.crds import served_crd, widget_crd


@pytest.fixture
def widgets():
    crd = served_crd(widget_crd())
    customkinds.observe(crd)
    yield crd
    customkinds.forget(crd)


@pytest.mark.parametrize("group, version, kind, expected", [
    ("example.com", "v1", "Widget", "com.example.v1.Widget"),
    ("stable.example.com", "v1beta1", "CronTab", "com.example.stable.v1beta1.CronTab"),
])
def test_model_names_reverse_the_group(group, version, kind, expected):
    assert model_name(group, version, kind) == expected


def test_the_custom_group_version_is_indexed_while_its_crd_is_served(widgets):
    assert "apis/example.com/v1" in openapi.index()["paths"]
    customkinds.forget(widgets)
    assert "apis/example.com/v1" not in openapi.index()["paths"]


def test_the_kind_schema_carries_its_gvk_and_metadata_and_the_refs_resolve(widgets):
    doc = json.loads(openapi.encoded("apis/example.com/v1"))
    schema = doc["components"]["schemas"]["com.example.v1.Widget"]
    assert schema["x-kubernetes-group-version-kind"] == [{"group": "example.com", "kind": "Widget", "version": "v1"}]
    assert schema["properties"]["spec"]["properties"]["size"]["enum"] == ["small", "large"]
    assert set(schema["properties"]) >= {"apiVersion", "kind", "metadata", "spec", "status"}
    item = doc["paths"]["/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"]
    assert "fieldValidation" in [p["name"] for p in item["patch"]["parameters"]]
    assert "/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/status" in doc["paths"]
    text = json.dumps(doc)
    for ref in {part.split('"')[0] for part in text.split("#/components/schemas/")[1:]}:
        assert ref in doc["components"]["schemas"], ref


def test_the_index_hash_changes_with_the_crd(widgets):
    before = openapi.digest("apis/example.com/v1")
    changed = served_crd(widget_crd())
    changed["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["x"] = {
        "type": "string"}
    changed["metadata"]["resourceVersion"] = "99"
    customkinds.observe(changed)
    assert openapi.digest("apis/example.com/v1") != before


def test_swagger_v2_holds_the_custom_definitions(widgets):
    swagger = openapi.swagger()
    assert "com.example.v1.Widget" in swagger["definitions"]
    assert "/apis/example.com/v1/namespaces/{namespace}/widgets" in swagger["paths"]
