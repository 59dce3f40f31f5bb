"""How server-side apply walks an object of a kind: which lists are maps keyed by fields (their items named
`k:{...}`), which are sets (`v:...`), which are atomic (owned and replaced whole), and which maps are
atomic structs. Built-in kinds follow their strategic merge keys (api/patch/mergekeys.py: a merge key makes
a keyed list, a merged list of primitives a set); custom kinds follow their schema's
`x-kubernetes-list-type`, `x-kubernetes-list-map-keys` and `x-kubernetes-map-type` (lists atomic unless
it says otherwise, as Kubernetes treats them)."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from api.patch.mergekeys import STRATEGIES, Strategy, _META, _POD_SPEC, _under


@dataclass(frozen=True)
class ListType:
    kind: str  # "atomic", "map" (items keyed by `keys`) or "set"
    keys: tuple[str, ...] = ()


ATOMIC = ListType("atomic")
_TEMPLATE = {**_under("metadata", {"finalizers": Strategy(merge=True), "ownerReferences": Strategy(True, "uid")}),
             **_under("spec", _POD_SPEC)}
_PORTS = {"spec.ports": Strategy(True, "port")}
_EXTRA: dict[str, dict[str, Strategy]] = {
    "StatefulSet": _under("spec.template", _TEMPLATE), "DaemonSet": _under("spec.template", _TEMPLATE),
    "Job": _under("spec.template", _TEMPLATE), "ReplicationController": _under("spec.template", _TEMPLATE),
    "CronJob": _under("spec.jobTemplate.spec.template", _TEMPLATE), "PodTemplate": _under("template", _TEMPLATE),
    "Service": _PORTS,
}
# LabelSelector is `+structType=atomic`: owned and replaced whole
_ATOMIC_MAPS = {kind: {"spec.selector"} for kind in ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet")}


def _list_type(strategy: Strategy | None) -> ListType:
    if strategy is None or not strategy.merge:
        return ATOMIC
    return ListType("map", (strategy.key,)) if strategy.key else ListType("set")


@dataclass(frozen=True)
class Shape:
    """A place in an object of a built-in kind: the field names from the root (a list item adds no step)."""

    kind: str
    path: str = ""

    def child(self, name: str) -> "Shape":
        return _child(self.kind, self.path, name)

    def item(self) -> "Shape":
        return self

    def list_type(self) -> ListType:
        return _list_type_at(self.kind, self.path)

    def atomic_map(self) -> bool:
        return self.path in _ATOMIC_MAPS.get(self.kind, ())


# Every write of a kind walks the same few places: their shapes and list types are made once (bounded:
# the names of labels, annotations and data keys are places too)
@lru_cache(maxsize=4096)
def _child(kind: str, path: str, name: str) -> Shape:
    return Shape(kind, f"{path}.{name}" if path else name)


@lru_cache(maxsize=1024)
def _list_type_at(kind: str, path: str) -> ListType:
    table = STRATEGIES.get(kind) or {**_META, **_EXTRA.get(kind, {})}
    return _list_type(table.get(path))


@dataclass(frozen=True)
class SchemaShape:
    """A place in a custom object: its node of the CRD's structural schema (metadata as built-in)."""

    schema: dict = field(hash=False, compare=False)
    meta: Shape | None = None

    def child(self, name: str) -> "SchemaShape | Shape":
        if self.meta is not None:
            return self.meta.child(name)
        if name == "metadata" and self.schema.get("type") == "object" and "x-root" in self.schema:
            return Shape("", "metadata")
        props = self.schema.get("properties") or {}
        extra = self.schema.get("additionalProperties")
        return SchemaShape(props.get(name) or (extra if isinstance(extra, dict) else {}))

    def item(self) -> "SchemaShape":
        return SchemaShape(self.schema.get("items") or {})

    def list_type(self) -> ListType:
        kind = self.schema.get("x-kubernetes-list-type")
        if kind == "map":
            return ListType("map", tuple(self.schema.get("x-kubernetes-list-map-keys") or ()))
        return ListType("set") if kind == "set" else ATOMIC

    def atomic_map(self) -> bool:
        return self.schema.get("x-kubernetes-map-type") == "atomic"


def of_kind(kind: str, schema: dict | None = None) -> Shape | SchemaShape:
    """The root shape of an object of `kind`; a custom kind's `schema` is its storage version's."""
    if schema is None:
        return _child(kind, "", "")  # Shape(kind), made once
    return SchemaShape({**schema, "type": "object", "x-root": True})
