"""Field selectors (`metadata.name=web,status.phase!=Failed`): the dotted paths a kind is selected by,
compared as Kubernetes' field sets do, as text (`spec.unschedulable=true` matches the boolean). Used by
the store's lists and by the gateway's watches, which filter the same way and refuse the same fields."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from api.status import bad_request

# What a kind's field set says of a field the object leaves out: Kubernetes builds each selectable
# field from its Go struct (strconv.FormatBool, strconv.Itoa of a zero value), so an absent one reads
# as its zero value — `spec.unschedulable=false` selects the node that never set it
DEFAULTED = {("Node", ("spec", "unschedulable")): "false", ("Pod", ("spec", "hostNetwork")): "false",
             ("Job", ("status", "successful")): "0", ("ReplicationController", ("status", "replicas")): "0"}

# Kubernetes' field label conversion funcs (pkg/apis/core/v1/conversion.go, batch/v1/conversion.go): the
# labels each kind is selected by. A kind without one (apps/v1's ReplicaSet too: its status.replicas is
# in its field set but not here, kubernetes#135136) takes runtime.DefaultMetaV1FieldSelectorConversion's
META = ("metadata.name", "metadata.namespace")
SUPPORTED = {
    "Pod": (*META, "spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
            "spec.hostNetwork", "status.phase", "status.podIP", "status.podIPs", "status.nominatedNodeName"),
    "Node": ("metadata.name", "spec.unschedulable"),
    "ReplicationController": (*META, "status.replicas"),
    "Event": (*META, "involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
              "involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath", "reason",
              "reportingComponent", "source", "type"),
    "Namespace": ("metadata.name", "status.phase"),
    "Secret": (*META, "type"),
    "Service": (*META, "spec.clusterIP", "spec.type"),
    "Job": (*META, "status.successful"),
}
RENAMED = {("Pod", "spec.host"): "spec.nodeName"}  # old v1 clients' name for it


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


def supported(kind: str, selector: FieldSelector) -> FieldSelector:
    """The selector in the kind's labels (`spec.host` read as a pod's `spec.nodeName`); BadRequest, worded
    as the kind's conversion func words it, for a label the kind is not selected by."""
    terms = []
    for term in selector.terms:
        label = ".".join(term.path)
        label = RENAMED.get((kind, label), label)
        if label not in SUPPORTED.get(kind, META):
            raise bad_request(_unsupported(kind, label))
        terms.append(FieldTerm(tuple(label.split(".")), term.negate, term.value))
    return FieldSelector(tuple(terms))


def _unsupported(kind: str, label: str) -> str:
    if kind == "Job":
        return f'field label "{label}" not supported for Job'
    if kind in SUPPORTED:
        return f"field label not supported: {label}"
    return f'"{label}" is not a known field selector: only "metadata.name", "metadata.namespace"'


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
