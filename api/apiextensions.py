"""CustomResourceDefinition (apiextensions.k8s.io/v1): the model, its defaults (SetDefaults_*) and the
names the CRD controllers and the served kinds read. A version's schema stays a plain dict: its keys
(`x-kubernetes-*`, `$ref`) are JSON Schema's, checked by `api/crd_validation.py`."""
from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from api.meta import Condition, K8sModel, Resource

GROUP = "apiextensions.k8s.io"
CLEANUP_FINALIZER = "customresourcecleanup.apiextensions.k8s.io"


class CustomResourceDefinitionNames(K8sModel):
    plural: str | None = None
    singular: str | None = None
    kind: str | None = None
    listKind: str | None = None
    shortNames: list[str] | None = None
    categories: list[str] | None = None


class CustomResourceDefinitionVersion(K8sModel):
    name: str | None = None
    served: bool | None = None
    storage: bool | None = None
    deprecated: bool | None = None
    deprecationWarning: str | None = None
    schema_: dict[str, Any] | None = Field(None, alias="schema")
    subresources: dict[str, Any] | None = None
    additionalPrinterColumns: list[dict[str, Any]] | None = None
    selectableFields: list[dict[str, Any]] | None = None


class CustomResourceDefinitionSpec(K8sModel):
    group: str | None = None
    names: CustomResourceDefinitionNames = Field(default_factory=CustomResourceDefinitionNames)
    scope: str | None = None
    versions: list[CustomResourceDefinitionVersion] | None = None
    conversion: dict[str, Any] | None = None
    preserveUnknownFields: bool | None = None


class CustomResourceDefinitionStatus(K8sModel):
    conditions: list[Condition] | None = None
    acceptedNames: CustomResourceDefinitionNames | None = None
    storedVersions: list[str] | None = None
    observedGeneration: int | None = None


class CustomResourceDefinition(Resource):
    API_VERSION: ClassVar[str] = f"{GROUP}/v1"
    KIND: ClassVar[str] = "CustomResourceDefinition"

    spec: CustomResourceDefinitionSpec = Field(default_factory=CustomResourceDefinitionSpec)
    status: CustomResourceDefinitionStatus | None = None


def set_defaults(crd: dict) -> None:
    """SetDefaults_CustomResourceDefinition(Spec): conversion None, singular and listKind from kind."""
    spec = crd.setdefault("spec", {})
    spec.setdefault("conversion", {"strategy": "None"})
    conversion = spec["conversion"]
    if isinstance(conversion, dict) and conversion.get("strategy") == "Webhook":
        service = ((conversion.get("webhook") or {}).get("clientConfig") or {}).get("service")
        if isinstance(service, dict):
            service.setdefault("port", 443)
    names = spec.setdefault("names", {})
    kind = names.get("kind") or ""
    if kind:
        names.setdefault("singular", kind.lower())
        names.setdefault("listKind", f"{kind}List")


def condition(crd: dict, type_: str) -> dict | None:
    for cond in (crd.get("status") or {}).get("conditions") or []:
        if cond.get("type") == type_:
            return cond
    return None


def is_true(crd: dict, type_: str) -> bool:
    found = condition(crd, type_)
    return bool(found and found.get("status") == "True")


def storage_version(crd: dict) -> str:
    for version in crd["spec"].get("versions") or []:
        if version.get("storage"):
            return version["name"]
    return ""
