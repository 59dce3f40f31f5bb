"""The kinds' schemas as kube-apiserver's OpenAPI names them, from the pydantic models: a model
becomes `io.k8s.api.<group>.<version>.<Name>` (the meta types `io.k8s.apimachinery.pkg.apis.meta.v1.…`),
optional fields lose pydantic's `anyOf [X, null]`, and each kind carries its
`x-kubernetes-group-version-kind`. (kubectl takes strategic-merge keys from its own compiled-in
types for every kind kubus serves, so the schemas do not repeat api/patch/mergekeys.)"""
from __future__ import annotations

import sys
from functools import lru_cache
from typing import Any

from api.openapi_describe import describe, k8s_type
from api.registry import KINDS, KindInfo

DROPPED = {"title", "default", "additionalProperties"}
# where a type that is no kind lives, by the module that defines it
MODULE_PACKAGES = {"api.meta": "io.k8s.apimachinery.pkg.apis.meta.v1", "api.apps": "io.k8s.api.apps.v1",
                   "api.rbac": "io.k8s.api.rbac.v1", "api.discovery": "io.k8s.api.discovery.v1"}
CORE = "io.k8s.api.core.v1"


def package_of(info: KindInfo) -> str:
    """`io.k8s.api.apps.v1` for apps/v1 (`core` for the legacy group, `.k8s.io` dropped)."""
    group, _, version = info.api_version.rpartition("/")
    return f"io.k8s.api.{group.removesuffix('.k8s.io').removesuffix('.authorization') or 'core'}.{version}"


def schema_name(model: str) -> str:
    """A kind, and a type named after one (`LeaseSpec`), in the kind's package; any other type in
    its module's (core/v1 unless MODULE_PACKAGES says otherwise)."""
    for info in KINDS.values():
        if model.startswith(info.kind) and _module_of(model) == info.model.__module__:
            return f"{package_of(info)}.{model}"
    return f"{MODULE_PACKAGES.get(_module_of(model), CORE)}.{model}"


def _module_of(model: str) -> str:
    """The api/ module that defines the class named `model`."""
    for name, module in list(sys.modules.items()):
        found = getattr(module, model, None) if name.startswith("api.") else None
        if isinstance(found, type):
            return found.__module__
    return ""


@lru_cache(maxsize=1)
def schemas() -> dict[str, dict]:
    """Every component schema of every kind, by its Kubernetes name: made once (the built-in kinds do not
    change), shared by every caller — read it, never change it."""
    out: dict[str, dict] = {}
    for info in KINDS.values():
        raw = info.model.model_json_schema(by_alias=True, ref_template="{model}")
        names = {model: schema_name(model) for model in [*raw.get("$defs", {}), info.model.__name__]}
        for model, body in raw.get("$defs", {}).items():
            out.setdefault(names[model], _clean(body, names))
        top = _clean({k: v for k, v in raw.items() if k != "$defs"}, names)
        top["x-kubernetes-group-version-kind"] = [gvk(info)]
        out[names[info.model.__name__]] = top
    describe(out, {schema_name(info.model.__name__): k8s_type(kind) for kind, info in KINDS.items() if k8s_type(kind)})
    return out


def gvk(info: KindInfo) -> dict[str, str]:
    group, _, version = info.api_version.rpartition("/")
    return {"group": group, "kind": info.kind, "version": version}


def _clean(node: Any, names: dict[str, str]) -> Any:
    if isinstance(node, list):
        return [_clean(item, names) for item in node]
    if not isinstance(node, dict):
        return node
    options = node.get("anyOf")
    if options and len(options) == 2 and {"type": "null"} in options:  # Optional[X]: X
        rest = {k: v for k, v in node.items() if k != "anyOf"}
        return _clean({**rest, **next(o for o in options if o != {"type": "null"})}, names)
    out = {}
    for key, value in node.items():
        if key in DROPPED:
            continue
        if key == "$ref":
            out[key] = f"#/components/schemas/{names.get(value, value)}"
        elif key == "properties":
            out[key] = {field: _clean(body, names) for field, body in value.items()}
        else:
            out[key] = _clean(value, names)
    return out

