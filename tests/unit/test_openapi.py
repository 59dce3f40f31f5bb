"""The OpenAPI documents as kubectl reads them: Kubernetes' schema names and refs that resolve, each
kind's group-version-kind, PATCH operations with `fieldValidation` and no request body, an index
whose hashes follow the documents; and the unknown fields `fieldValidation` warns of."""
from __future__ import annotations

import json

from actors.gateway.openapi_v2 import encoded
from api.openapi import digest, documents, index, swagger
from api.registry import KINDS


def test_every_kind_is_in_its_group_versions_document_under_its_kubernetes_name():
    docs = documents()
    assert sorted(docs) == ["api/v1", "apis/admissionregistration.k8s.io/v1", "apis/apiextensions.k8s.io/v1",
                            "apis/apps/v1", "apis/autoscaling/v2", "apis/batch/v1", "apis/coordination.k8s.io/v1",
                            "apis/discovery.k8s.io/v1",
                            "apis/networking.k8s.io/v1", "apis/policy/v1", "apis/rbac.authorization.k8s.io/v1",
                            "apis/scheduling.k8s.io/v1", "apis/storage.k8s.io/v1"]
    pod = docs["api/v1"]["components"]["schemas"]["io.k8s.api.core.v1.Pod"]
    assert pod["x-kubernetes-group-version-kind"] == [{"group": "", "kind": "Pod", "version": "v1"}]
    assert pod["properties"]["metadata"] == {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
    deployment = docs["apis/apps/v1"]["components"]["schemas"]["io.k8s.api.apps.v1.Deployment"]
    assert deployment["x-kubernetes-group-version-kind"] == [{"group": "apps", "kind": "Deployment", "version": "v1"}]
    container = docs["apis/apps/v1"]["components"]["schemas"]["io.k8s.api.core.v1.Container"]  # core, as in k8s
    assert container["properties"]["image"]["type"] == "string"  # Optional[str]: no anyOf null
    assert container["properties"]["image"]["description"].startswith("Container image name.")  # Kubernetes' text
    assert container["properties"]["env"]["items"] == {"$ref": "#/components/schemas/io.k8s.api.core.v1.EnvVar"}
    for doc in docs.values():
        text = json.dumps(doc)
        for ref in {part.split('"')[0] for part in text.split("#/components/schemas/")[1:]}:
            assert ref in doc["components"]["schemas"], ref
    assert sum(len(doc["paths"]) for doc in docs.values()) == 2 * len(KINDS)


def test_kinds_and_fields_carry_kubernetes_descriptions_where_kubus_models_them():
    schemas = documents()["apis/apps/v1"]["components"]["schemas"]
    assert schemas["io.k8s.api.apps.v1.Deployment"]["description"] == \
        "Deployment enables declarative updates for Pods and ReplicaSets."
    assert schemas["io.k8s.api.apps.v1.DeploymentSpec"]["properties"]["replicas"]["description"].startswith(
        "Number of desired pods.")
    revision = schemas["io.k8s.api.apps.v1.ControllerRevision"]["description"]  # not kubus's docstring
    assert revision.startswith("ControllerRevision implements an immutable snapshot of state data.")
    pod_spec = documents()["api/v1"]["components"]["schemas"]["io.k8s.api.core.v1.PodSpec"]
    assert pod_spec["properties"]["containers"]["description"].startswith("List of containers belonging to the pod.")
    assert "description" not in pod_spec["properties"].get("securityContext", {})  # a $ref: the client has none


def test_patch_operations_advertise_field_validation_and_take_no_body():
    patch = documents()["api/v1"]["paths"]["/api/v1/namespaces/{namespace}/pods/{name}"]["patch"]
    assert patch["x-kubernetes-group-version-kind"] == {"group": "", "kind": "Pod", "version": "v1"}
    assert "fieldValidation" in [p["name"] for p in patch["parameters"]]
    assert "requestBody" not in patch
    assert "/api/v1/nodes/{name}" in documents()["api/v1"]["paths"]  # cluster-scoped: no namespace


def test_the_index_points_at_each_document_by_its_hash():
    listed = index()["paths"]
    assert listed["apis/apps/v1"]["serverRelativeURL"] == f"/openapi/v3/apis/apps/v1?hash={digest('apis/apps/v1')}"
    assert digest("api/v1") != digest("apis/apps/v1") and len(digest("api/v1")) == 128


def test_swagger_2_has_every_schema_with_its_refs_as_definitions():
    doc = swagger()
    assert doc["swagger"] == "2.0" and "io.k8s.api.core.v1.Pod" in doc["definitions"]
    assert "#/components/" not in json.dumps(doc)
    assert encoded().startswith(b"\n\x032.0")  # protobuf: field 1 (swagger), "2.0"


