"""Field selectors (`metadata.name=web,status.phase!=Failed`): every dotted path of an object, compared
as Kubernetes' field sets do, as text (`spec.unschedulable=true` matches the boolean). Used by the
store's lists and by the gateway's watches, which filter the same way."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from api.status import bad_request

# What a kind's field set says of a field the object leaves out: Kubernetes builds each selectable
# field from its Go struct (strconv.FormatBool, strconv.Itoa of a zero value), so an absent one reads
# as its zero value — `spec.unschedulable=false` selects the node that never set it
DEFAULTED = {("Node", ("spec", "unschedulable")): "false", ("Pod", ("spec", "hostNetwork")): "false",
             ("Job", ("status", "successful")): "0", ("ReplicationController", ("status", "replicas")): "0",
             ("ReplicaSet", ("status", "replicas")): "0"}


@dataclass(frozen=True)
class FieldTerm:
    path: tuple[str, ...]
    negate: bool
    value: str


@dataclass(frozen=True)
class FieldSelector:
    terms: tuple[FieldTerm, ...] = ()

    def matches(self, obj: dict) -> bool:
        return all((_value(obj, term.path) == term.value) != term.negate for term in self.terms)


def parse_fields(text: str | None) -> FieldSelector:
    """`a=b`, `a==b` and `a!=b` terms separated by commas; BadRequest for a term without an operator."""
    terms = []
    for part in filter(None, (text or "").split(",")):
        negate = "!=" in part
        path, sep, value = part.partition("!=" if negate else "=")
        if not sep or not path.strip():
            raise bad_request(f"invalid selector: '{text}'; can't understand '{part}'")
        terms.append(FieldTerm(tuple(path.strip().split(".")), negate, value.strip().lstrip("=")))
    return FieldSelector(tuple(terms))


def _value(obj: dict, path: tuple[str, ...]) -> str:
    if path == ("source",) and obj.get("kind") == "Event":  # an Event's `source` is its component's name
        return _text(_at(obj, ("source", "component")) or obj.get("reportingComponent"))
    found = _at(obj, path)
    return DEFAULTED.get((obj.get("kind"), path), "") if found is None else _text(found)


def _at(obj: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        obj = obj.get(part) if isinstance(obj, dict) else None
    return obj


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)
