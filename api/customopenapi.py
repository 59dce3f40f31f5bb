"""OpenAPI v3 for the custom kinds, as the apiextensions OpenAPI builder publishes it (AX
`controller/openapi/builder`): each served version of each CRD is one more group-version document whose
kind schema is the version's structural schema with `apiVersion`, `kind` and `metadata` (→ ObjectMeta)
added and its `x-kubernetes-group-version-kind`; the list is `<ListKind>`; model names reverse the group
(`com.example.v1.Widget`). kubectl's `explain` renders these, and the `fieldValidation` parameter on the
operations tells kubectl the server checks fields."""
from __future__ import annotations

import copy

from api.customkinds import CustomKind

META = "io.k8s.apimachinery.pkg.apis.meta.v1"
QUERY = ("dryRun", "fieldManager", "fieldValidation")
API_VERSION_DOC = ("APIVersion defines the versioned schema of this representation of an object. Servers should "
                   "convert recognized schemas to the latest internal value, and may reject unrecognized values.")
KIND_DOC = ("Kind is a string value representing the REST resource this object represents. Servers may infer "
            "this from the endpoint the client submits requests to. Cannot be updated. In CamelCase.")
METADATA_DOC = "Standard object's metadata."


def model_name(group: str, version: str, kind: str) -> str:
    """`com.example.v1.Widget` for example.com/v1 Widget."""
    return ".".join([*reversed(group.split(".")), version, kind])


def selectable(info: CustomKind, version: str) -> list[dict]:
    for entry in (info.source.get("spec") or {}).get("versions") or []:
        if entry.get("name") == version:
            return [{"fieldPath": f["jsonPath"].lstrip(".")} for f in entry.get("selectableFields") or []]
    return []


def kind_schema(info: CustomKind, version: str) -> dict:
    schema = copy.deepcopy(info.schema_for(f"{info.group}/{version}")) or {"type": "object"}
    properties = schema.setdefault("properties", {})
    properties["apiVersion"] = {"type": "string", "description": API_VERSION_DOC}
    properties["kind"] = {"type": "string", "description": KIND_DOC}
    properties["metadata"] = {"allOf": [{"$ref": f"#/components/schemas/{META}.ObjectMeta"}],
                              "description": METADATA_DOC}
    schema["type"] = "object"
    schema["x-kubernetes-group-version-kind"] = [{"group": info.group, "kind": info.kind, "version": version}]
    if fields := selectable(info, version):
        schema["x-kubernetes-selectable-fields"] = fields
    return schema


def list_schema(info: CustomKind, version: str) -> dict:
    list_kind = info.list_kind or f"{info.kind}List"
    return {"type": "object", "required": ["items"], "description": f"{list_kind} is a list of {info.kind}",
            "properties": {
                "apiVersion": {"type": "string", "description": API_VERSION_DOC},
                "kind": {"type": "string", "description": KIND_DOC},
                "metadata": {"allOf": [{"$ref": f"#/components/schemas/{META}.ListMeta"}]},
                "items": {"type": "array", "items": {
                    "$ref": f"#/components/schemas/{model_name(info.group, version, info.kind)}"}}},
            "x-kubernetes-group-version-kind": [{"group": info.group, "kind": list_kind, "version": version}]}


def paths(info: CustomKind, version: str) -> dict[str, dict]:
    prefix = f"/apis/{info.group}/{version}" + ("/namespaces/{namespace}" if info.namespaced else "")
    collection, item = f"{prefix}/{info.plural}", f"{prefix}/{info.plural}/{{name}}"
    gvk = {"group": info.group, "kind": info.kind, "version": version}
    ref = {"$ref": f"#/components/schemas/{model_name(info.group, version, info.kind)}"}
    list_name = model_name(info.group, version, info.list_kind or f"{info.kind}List")
    list_ref = {"$ref": f"#/components/schemas/{list_name}"}

    def op(verb: str, action: str, body: dict, query: tuple[str, ...] = ()) -> dict:
        return {"operationId": f"{verb}{info.group.replace('.', '')}{version}{info.kind}",
                "x-kubernetes-action": action, "x-kubernetes-group-version-kind": gvk,
                "parameters": [{"name": q, "in": "query", "schema": {"type": "string"}, "uniqueItems": True}
                               for q in query],
                "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": body}}}}}
    out = {collection: {"get": op("list", "list", list_ref), "post": op("create", "post", ref, QUERY)},
           item: {"get": op("read", "get", ref), "put": op("replace", "put", ref, QUERY),
                  "patch": op("patch", "patch", ref, QUERY), "delete": op("delete", "delete", ref, ("dryRun",))}}
    for sub in ("status", "scale"):
        if sub in info.subresources:
            body = ref if sub == "status" else {"$ref": "#/components/schemas/io.k8s.api.autoscaling.v1.Scale"}
            out[f"{item}/{sub}"] = {"get": op(f"read{sub}", "get", body),
                                    "put": op(f"replace{sub}", "put", body, QUERY),
                                    "patch": op(f"patch{sub}", "patch", body, QUERY)}
    return out


SCALE = {  # autoscaling/v1 Scale, which kubus has no model for
    "io.k8s.api.autoscaling.v1.Scale": {
        "type": "object", "description": "Scale represents a scaling request for a resource.",
        "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                       "metadata": {"allOf": [{"$ref": f"#/components/schemas/{META}.ObjectMeta"}]},
                       "spec": {"$ref": "#/components/schemas/io.k8s.api.autoscaling.v1.ScaleSpec"},
                       "status": {"$ref": "#/components/schemas/io.k8s.api.autoscaling.v1.ScaleStatus"}},
        "x-kubernetes-group-version-kind": [{"group": "autoscaling", "kind": "Scale", "version": "v1"}]},
    "io.k8s.api.autoscaling.v1.ScaleSpec": {"type": "object", "properties": {
        "replicas": {"type": "integer", "format": "int32"}}},
    "io.k8s.api.autoscaling.v1.ScaleStatus": {"type": "object", "required": ["replicas"], "properties": {
        "replicas": {"type": "integer", "format": "int32"}, "selector": {"type": "string"}}},
}


LIST_META = {"type": "object", "description": "ListMeta describes metadata that synthetic resources must have.",
             "properties": {"continue": {"type": "string"}, "resourceVersion": {"type": "string"},
                            "remainingItemCount": {"type": "integer", "format": "int64"}, "selfLink": {"type": "string"}}}


def documents(kinds: list[CustomKind], meta_schemas: dict[str, dict]) -> dict[str, dict]:
    """One document per served group-version of the custom kinds, by `apis/<group>/<version>`;
    `meta_schemas` are ObjectMeta, ListMeta and what they reach (taken from the built-in documents)."""
    out: dict[str, dict] = {}
    for info in kinds:
        for version in info.versions:
            doc = out.setdefault(f"apis/{info.group}/{version}", {
                "openapi": "3.0.0", "info": {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"},
                "paths": {}, "components": {"schemas": {f"{META}.ListMeta": LIST_META, **meta_schemas}}})
            doc["paths"].update(paths(info, version))
            schemas = doc["components"]["schemas"]
            schemas[model_name(info.group, version, info.kind)] = kind_schema(info, version)
            schemas[model_name(info.group, version, info.list_kind or f"{info.kind}List")] = list_schema(info, version)
            if "scale" in info.subresources:
                schemas.update(SCALE)
    return out
