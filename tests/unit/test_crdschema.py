"""A CRD's schema at work on custom objects: validation messages as Kubernetes words them, pruning and
defaulting (table-driven); and the CRD's own validation and naming decisions."""
from __future__ import annotations

import pytest

from actors.controllers.crdnames import desired_status, names_verdict
from api.crd_validation import validate_crd
from api.crdschema.defaulting import default
from api.crdschema.pruning import prune
from api.crdschema.validation import validate
from api.apiextensions import set_defaults
from tests.crds import widget_crd

SCHEMA = {"type": "object", "properties": {"spec": {"type": "object", "required": ["size"], "properties": {
    "replicas": {"type": "integer", "minimum": 0, "maximum": 10},
    "size": {"type": "string", "enum": ["small", "large"]},
    "name": {"type": "string", "pattern": "^[a-z]+$", "minLength": 2, "maxLength": 5},
    "port": {"x-kubernetes-int-or-string": True},
    "ratio": {"type": "number", "exclusiveMaximum": True, "maximum": 1},
    "tags": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "string"}},
    "note": {"type": "string", "nullable": True},
    "id": {"type": "string", "format": "uuid"},
    "template": {"type": "object", "x-kubernetes-embedded-resource": True,
                 "x-kubernetes-preserve-unknown-fields": True},
}}}}


@pytest.mark.parametrize("spec, expected", [
    ({"size": "small"}, []),
    ({"size": "small", "note": None, "port": "http"}, []),
    ({}, ["spec.size: Required value"]),
    ({"size": "small", "replicas": "x"},
     ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"']),
    ({"size": "small", "replicas": 11},
     ["spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10"]),
    ({"size": "small", "replicas": -1},
     ["spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0"]),
    ({"size": "huge"}, ['spec.size: Unsupported value: "huge": supported values: "small", "large"']),
    ({"size": "small", "name": "A"}, ['spec.name: Invalid value: "A": spec.name in body should be at least 2 chars long',
                                      'spec.name: Invalid value: "A": spec.name in body should match \'^[a-z]+$\'']),
    ({"size": "small", "name": "abcdef"}, ["spec.name: Too long: may not be more than 5 bytes"]),
    ({"size": "small", "port": 1.5},
     ['spec.port: Invalid value: "number": spec.port in body must be of type integer-or-string: "number"']),
    ({"size": "small", "ratio": 1}, ["spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1"]),
    ({"size": "small", "tags": ["a", "b", "c"]}, ["spec.tags: Too many: 3: must have at most 2 items"]),
    ({"size": "small", "tags": []},
     ["spec.tags: Invalid value: []: spec.tags in body should have at least 1 items"]),
    ({"size": "small", "tags": [1]},
     ['spec.tags[0]: Invalid value: "integer": spec.tags[0] in body must be of type string: "integer"']),
    ({"size": "small", "name": None},
     ['spec.name: Invalid value: "null": spec.name in body must be of type string: "null"']),
    ({"size": "small", "id": "nope"}, ['spec.id: Invalid value: "nope": spec.id in body must be of type uuid: "nope"']),
    ({"size": "small", "template": {"metadata": {}}},
     ["spec.template.apiVersion: Required value: must not be empty",
      "spec.template.kind: Required value: must not be empty"]),
])
def test_validation_messages(spec, expected):
    assert [f"{c.field}: {c.message}" for c in validate({"spec": spec}, SCHEMA)] == expected


@pytest.mark.parametrize("obj, schema, kept, dropped", [
    ({"spec": {"a": 1, "b": 2}, "x": 1}, {"type": "object", "properties": {"spec": {
        "type": "object", "properties": {"a": {"type": "integer"}}}}}, {"spec": {"a": 1}}, ["spec.b", "x"]),
    ({"spec": {"free": {"deep": 1}}}, {"type": "object", "properties": {"spec": {
        "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}, {"spec": {"free": {"deep": 1}}}, []),
    ({"spec": {"m": {"k": {"v": 1, "junk": 2}}}}, {"type": "object", "properties": {"spec": {"type": "object",
        "properties": {"m": {"type": "object", "additionalProperties": {"type": "object", "properties": {
            "v": {"type": "integer"}}}}}}}}, {"spec": {"m": {"k": {"v": 1}}}}, ["spec.m.k.junk"]),
    ({"spec": {"l": [{"a": 1, "z": 0}]}}, {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "l": {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "integer"}}}}}}}},
     {"spec": {"l": [{"a": 1}]}}, ["spec.l[0].z"]),
])
def test_pruning(obj, schema, kept, dropped):
    full = {"apiVersion": "x/v1", "kind": "X", "metadata": {"name": "a", "bogus": 1}, **obj}
    assert prune(full, schema) == ["metadata.bogus", *dropped]
    assert full == {"apiVersion": "x/v1", "kind": "X", "metadata": {"name": "a"}, **kept}


@pytest.mark.parametrize("obj, expected", [
    ({"spec": {}}, {"spec": {"replicas": 1, "l": []}}),
    ({"spec": {"replicas": None}}, {"spec": {"replicas": 1, "l": []}}),
    ({"spec": {"replicas": 5, "l": [{}]}}, {"spec": {"replicas": 5, "l": [{"k": "d"}]}}),
    ({"spec": {"gone": None}}, {"spec": {"replicas": 1, "l": []}}),
    ({}, {"spec": {"replicas": 1, "l": []}}),
])
def test_defaulting(obj, expected):
    schema = {"type": "object", "properties": {"spec": {"type": "object", "default": {}, "properties": {
        "replicas": {"type": "integer", "default": 1}, "gone": {"type": "string"},
        "l": {"type": "array", "default": [], "items": {"type": "object", "properties": {
            "k": {"type": "string", "default": "d"}}}}}}}}
    default(obj, schema)
    assert obj == expected


def _crd(**changes) -> dict:
    crd = widget_crd()
    for path, value in changes.items():
        *parents, last = path.split("__")
        node = crd
        for part in parents:
            node = node[part] if not part.isdigit() else node[int(part)]
        node[last] = value
    set_defaults(crd)
    return crd


@pytest.mark.parametrize("changes, expected", [
    ({}, []),
    ({"metadata__name": "x.example.com"},
     ['metadata.name: Invalid value: "x.example.com": must be spec.names.plural+"."+spec.group']),
    ({"spec__scope": "Global"},
     ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"']),
    ({"spec__versions__0__storage": False},
     ["spec.versions: Invalid value: ...: must have exactly one version marked as storage version"]),
    ({"spec__names__listKind": "Widget"},
     ['spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same']),
    ({"spec__versions__0__schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
        "type": "object", "properties": {"a": {"type": "null"}}}}}}},
     ["spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[a].type: Forbidden: type cannot be set "
      "to null, use nullable as an alternative"]),
    ({"spec__versions__0__schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": {
        "properties": {}}}}}},
     ["spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for "
      "specified object fields"]),
    ({"spec__versions__0__additionalPrinterColumns": [{"name": "A", "type": "text", "jsonPath": "spec.a"}]},
     ['spec.versions[0].additionalPrinterColumns[0].type: Invalid value: "text": must be one of '
      'boolean,date,integer,number,string',
      'spec.versions[0].additionalPrinterColumns[0].jsonPath: Invalid value: "spec.a": must be a simple json path '
      'starting with .']),
])
def test_crd_validation(changes, expected):
    crd = _crd(**changes)
    if "spec__versions__0__schema" in changes:
        crd["spec"]["versions"][0]["subresources"] = {}
    assert [f"{c.field}: {c.message}" for c in validate_crd(crd)] == expected


def test_names_conflict_and_established():
    first = _crd()
    status = desired_status(first, [], "2026-01-01T00:00:00Z")
    conditions = {c["type"]: (c["status"], c["reason"]) for c in status["conditions"]}
    assert conditions == {"NamesAccepted": ("True", "NoConflicts"), "Established": ("True", "InitialNamesAccepted")}
    assert status["storedVersions"] == ["v1"]
    first["status"] = status
    second = _crd(metadata__name="gadgets.example.com", spec__names={"plural": "gadgets", "kind": "Gadget",
                                                                      "singular": "widget", "listKind": "GadgetList"})
    assert names_verdict(second, [first])[1:] == ("SingularConflict", '"widget" is already in use')
    pods = _crd(spec__names={"plural": "pods2", "kind": "Pod", "singular": "p", "listKind": "Pods2List"})
    assert names_verdict(pods, [])[1] == "KindConflict"  # kubus: a kind is one cluster-wide
