"""The kinds the CustomResourceDefinitions define, as each process knows them: every actor that serves or
watches custom objects feeds `observe`/`forget` from the CRD events it sees (the store from its own commits,
the apiservers from their cache, the gateway from an apiserver's answer), and `api/registry.py`'s `lookup`
finds them. A CRD is served once its names are accepted or it is Established, under its accepted names."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from api import registry
from api.apiextensions import is_true, storage_version
from api.crdversions import ordered
from api.meta import Resource
from api.registry import KindInfo


SERVED = "ServedCustomResourceDefinitions"  # what a gateway asks an apiserver for: the CRDs it serves


class CustomObject(Resource):
    """Any custom object: the schema, not a model, says what it holds."""


@dataclass(frozen=True)
class CustomKind(KindInfo):
    crd: str = ""  # the CRD's name, <plural>.<group>
    singular: str = ""
    list_kind: str = ""
    categories: tuple[str, ...] = ()
    versions: tuple[str, ...] = ()  # served versions, the preferred first
    schema: dict = field(default_factory=dict, compare=False, hash=False)  # the storage version's
    subresources: dict = field(default_factory=dict, compare=False, hash=False)
    columns: tuple = ()
    terminating: bool = False
    source: dict = field(default_factory=dict, compare=False, hash=False)  # the CRD as last seen

    @property
    def status_subresource(self) -> bool:
        return "status" in self.subresources

    @property
    def scale(self) -> dict | None:
        return self.subresources.get("scale")

    @property
    def selectable(self) -> tuple[str, ...]:
        """The storage version's selectableFields, as field-selector labels (`spec.color`)."""
        for entry in (self.source.get("spec") or {}).get("versions") or []:
            if f"{self.group}/{entry.get('name')}" == self.api_version:
                return tuple(f["jsonPath"].lstrip(".") for f in entry.get("selectableFields") or [])
        return ()

    def served_as(self, api_version: str | None) -> bool:
        return api_version in (f"{self.group}/{v}" for v in self.versions)

    def schema_for(self, api_version: str | None) -> dict:
        """The openAPIV3Schema of the version `api_version` names (conversion None: each version has its
        own schema over the same stored fields); the storage version's for any other."""
        version = (api_version or "").rpartition("/")[2]
        for entry in (self.source.get("spec") or {}).get("versions") or []:
            if entry.get("name") == version and api_version != self.api_version:
                return ((entry.get("schema") or {}).get("openAPIV3Schema")) or {}
        return self.schema


def served(crd: dict) -> bool:
    return is_true(crd, "Established") or is_true(crd, "NamesAccepted")


def kind_of(crd: dict) -> CustomKind:
    spec = crd["spec"]
    names = (crd.get("status") or {}).get("acceptedNames") or spec["names"]
    if not names.get("kind"):
        names = spec["names"]
    storage = storage_version(crd)
    version = next(v for v in spec["versions"] if v["name"] == storage)
    return CustomKind(
        names["kind"], CustomObject, f"{spec['group']}/{storage}", spec.get("scope") == "Namespaced", names["plural"],
        tuple(names.get("shortNames") or ()), has_spec_generation=True, crd=crd["metadata"]["name"],
        singular=names.get("singular") or names["kind"].lower(), list_kind=names.get("listKind") or "",
        categories=tuple(names.get("categories") or ()),
        versions=tuple(ordered(v["name"] for v in spec["versions"] if v.get("served"))),
        schema=(version.get("schema") or {}).get("openAPIV3Schema") or {},
        subresources=version.get("subresources") or {},
        columns=tuple(version.get("additionalPrinterColumns") or ()),
        terminating=bool(crd["metadata"].get("deletionTimestamp")), source=crd)


def observe(crd: dict) -> None:
    """A CRD added or changed: serve its kind, or stop serving it."""
    try:
        info = kind_of(crd) if served(crd) else None
    except (KeyError, StopIteration, TypeError):  # not a CRD the apiserver admitted: nothing to serve
        info = None
    owner = next((k for k, i in registry.CUSTOM.items() if getattr(i, "crd", "") == crd["metadata"]["name"]), None)
    if owner is not None and (info is None or owner != info.kind):
        registry.withdraw(owner)
    if info is None:
        return
    holder = registry.CUSTOM.get(info.kind)
    if holder is not None and getattr(holder, "crd", "") != info.crd or info.kind in registry.KINDS:
        return  # the kind is another's (kubus keys objects by kind: two groups may not share one)
    registry.serve(info, (info.plural, info.singular, info.resource, *info.short_names))


def forget(crd: dict) -> None:
    for kind, info in list(registry.CUSTOM.items()):
        if getattr(info, "crd", "") == crd["metadata"]["name"]:
            registry.withdraw(kind)


def on_event(type_: str, crd: dict) -> None:
    if type_ == "DELETED":
        forget(crd)
    else:
        observe(crd)


def sync(crds: list[dict]) -> None:
    """Serve exactly these CRDs (the gateway, from an apiserver's list)."""
    names = {crd["metadata"]["name"] for crd in crds}
    for info in list(registry.CUSTOM.values()):
        if getattr(info, "crd", "") not in names:
            registry.withdraw(info.kind)
    for crd in crds:
        observe(crd)


def custom(kind: str) -> CustomKind | None:
    info = registry.CUSTOM.get(kind)
    return info if isinstance(info, CustomKind) else None


def sources() -> list[dict[str, Any]]:
    """The CRDs served now, as last seen."""
    return [info.source for info in registry.CUSTOM.values() if isinstance(info, CustomKind)]
