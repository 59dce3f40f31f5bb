"""kube-apiserver's OpenAPI for kubus's kinds: `/openapi/v3` (an index of group-versions, each at a
URL carrying its document's hash) and one v3 document per group-version, and the Swagger 2.0
document of `/openapi/v2`. kubectl reads them to validate (`apply`, `create`: a PATCH operation with
the `fieldValidation` parameter tells it the server checks fields) and to `explain`. No operation
lists request bodies: kubectl would then build strategic patches from the schemas instead of its
own types (k8s-rest-api.md §3.4). The custom kinds' group-versions join them while their CRDs are
served (api/customopenapi.py), rebuilt when a CRD changes."""
from __future__ import annotations

import hashlib
import json
from functools import lru_cache

from api import customopenapi
from api.customkinds import CustomKind
from api.openapi_schema import gvk, schema_name, schemas
from api.registry import CUSTOM, KINDS, KindInfo

QUERY = ("dryRun", "fieldManager", "fieldValidation")


def gv_path(api_version: str) -> str:
    """`api/v1`, `apis/apps/v1`: how the index names a group-version."""
    return f"apis/{api_version}" if "/" in api_version else f"api/{api_version}"


def documents() -> dict[str, dict]:
    """Every group-version's v3 document, by `gv_path`: the built-in kinds', then the custom kinds'."""
    return {**builtin_documents(), **custom_documents()}


def custom_documents() -> dict[str, dict]:
    return _encoded_custom(_custom_key())[0]


@lru_cache(maxsize=4)
def _encoded_custom(key: tuple) -> tuple[dict[str, dict], dict[str, bytes]]:
    """The custom kinds' documents and their encodings, for one state of the served CRDs (`key`)."""
    components = schemas()
    meta = {name: components[name] for root in ("ObjectMeta", "ListMeta")
            for name in _reachable(f"io.k8s.apimachinery.pkg.apis.meta.v1.{root}", components)}
    docs = customopenapi.documents([info for info in CUSTOM.values() if isinstance(info, CustomKind)], meta)
    return docs, {path: _encode(doc) for path, doc in docs.items()}


def _custom_key() -> tuple:
    return tuple(sorted((kind, info.source.get("metadata", {}).get("resourceVersion", ""))
                        for kind, info in CUSTOM.items() if isinstance(info, CustomKind)))


@lru_cache(maxsize=None)
def builtin_documents() -> dict[str, dict]:
    components = schemas()
    out: dict[str, dict] = {}
    for info in KINDS.values():
        doc = out.setdefault(gv_path(info.api_version), {
            "openapi": "3.0.0", "info": {"title": "Kubernetes", "version": "v1.35.4-kubus"},
            "paths": {}, "components": {"schemas": {}}})
        doc["paths"].update(_paths(info))
        for name in _reachable(schema_name(info.model.__name__), components):
            doc["components"]["schemas"][name] = components[name]
    return out


def encoded(path: str) -> bytes | None:
    custom = _encoded_custom(_custom_key())[1].get(path)
    return custom if custom is not None else _encoded_builtin(path)


@lru_cache(maxsize=None)
def _encoded_builtin(path: str) -> bytes | None:
    doc = builtin_documents().get(path)
    return None if doc is None else _encode(doc)


def _encode(doc: dict) -> bytes:
    return json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()


def digest(path: str) -> str:
    return hashlib.sha512(encoded(path)).hexdigest().upper()


def index() -> dict:
    return {"paths": {path: {"serverRelativeURL": f"/openapi/v3/{path}?hash={digest(path)}"}
                      for path in sorted(documents())}}


def swagger() -> dict:
    return _swagger(_custom_key())


@lru_cache(maxsize=4)
def _swagger(key: tuple) -> dict:
    """The Swagger 2.0 document of `/openapi/v2`: the same operations and every schema, under
    `definitions`."""
    paths, definitions = {}, {}
    for doc in documents().values():
        definitions.update(doc["components"]["schemas"])
        for path, ops in doc["paths"].items():
            paths[path] = {verb: _swagger_op(op) for verb, op in ops.items()}
    text = json.dumps({"swagger": "2.0", "info": {"title": "Kubernetes", "version": "v1.35.4-kubus"},
                       "paths": paths, "definitions": definitions})
    return json.loads(text.replace("#/components/schemas/", "#/definitions/"))


def _swagger_op(op: dict) -> dict:
    ok = op["responses"]["200"]
    return {**op, "parameters": [{"name": p["name"], "in": "query", "type": "string", "uniqueItems": True}
                                 for p in op["parameters"]],
            "responses": {"200": {"description": "OK", "schema": ok["content"]["application/json"]["schema"]}}}


def _paths(info: KindInfo) -> dict[str, dict]:
    prefix = "/" + gv_path(info.api_version) + ("/namespaces/{namespace}" if info.namespaced else "")
    collection, item = f"{prefix}/{info.plural}", f"{prefix}/{info.plural}/{{name}}"
    ref = {"$ref": f"#/components/schemas/{schema_name(info.model.__name__)}"}
    kind = {"x-kubernetes-group-version-kind": gvk(info)}

    def op(verb: str, action: str, query: tuple[str, ...] = ()) -> dict:
        return {"operationId": f"{verb}{info.kind}", "x-kubernetes-action": action, **kind,
                "parameters": [{"name": q, "in": "query", "schema": {"type": "string"}, "uniqueItems": True}
                               for q in query],
                "responses": {"200": {"description": "OK", "content": {"application/json": {"schema": ref}}}}}
    return {collection: {"get": op("list", "list"), "post": op("create", "post", QUERY)},
            item: {"get": op("read", "get"), "put": op("replace", "put", QUERY),
                   "patch": op("patch", "patch", QUERY), "delete": op("delete", "delete", ("dryRun",))}}


def _reachable(root: str, components: dict[str, dict]) -> list[str]:
    """`root` and every schema its `$ref`s reach."""
    seen, todo = [], [root]
    while todo:
        name = todo.pop()
        if name in seen or name not in components:
            continue
        seen.append(name)
        text = json.dumps(components[name])
        todo.extend(part.split('"')[0] for part in text.split("#/components/schemas/")[1:])
    return seen
