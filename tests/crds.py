"""A Widget CRD for the tests: a schema with a bounded integer, an enum, a pattern and a default, the
status subresource and printer columns."""
from __future__ import annotations

import copy

from api.status import StatusError
from testkit.waiting import wait_until

WIDGET_SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {"type": "object", "required": ["size"], "properties": {
            "replicas": {"type": "integer", "minimum": 0, "maximum": 10, "default": 1},
            "size": {"type": "string", "enum": ["small", "large"]},
            "color": {"type": "string", "pattern": "^[a-z]+$"}}},
        "status": {"type": "object", "properties": {"ready": {"type": "integer"}}}}}

WIDGET_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {"group": "example.com", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "shortNames": ["wd"],
                       "categories": ["all"]},
             "versions": [{"name": "v1", "served": True, "storage": True,
                           "schema": {"openAPIV3Schema": WIDGET_SCHEMA},
                           "subresources": {"status": {}},
                           "additionalPrinterColumns": [
                               {"name": "Size", "type": "string", "jsonPath": ".spec.size"},
                               {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
                               {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}]}]}}


def widget_crd() -> dict:
    return copy.deepcopy(WIDGET_CRD)


def widget(name: str, **spec) -> dict:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name},
            "spec": {"size": "small", **spec}}


def served_crd(crd: dict) -> dict:
    """The CRD as the CRD controller leaves it: names accepted, Established."""
    crd = copy.deepcopy(crd)
    crd["metadata"].setdefault("resourceVersion", "1")
    crd["status"] = {"acceptedNames": crd["spec"]["names"], "storedVersions": [
        v["name"] for v in crd["spec"]["versions"] if v.get("storage")],
        "conditions": [{"type": t, "status": "True"} for t in ("NamesAccepted", "Established")]}
    return crd


def scalable_crd() -> dict:
    """The Widget CRD with the scale subresource over spec.replicas and status.ready."""
    crd = widget_crd()
    crd["spec"]["versions"][0]["subresources"]["scale"] = {
        "specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.ready"}
    return crd


def delete_crds(client, name: str | None = None) -> None:
    """Delete every CRD (or the one named) and wait until it is gone: kubus keys custom objects by kind,
    cluster-wide, so the next test on a shared plane may define the same kind only after."""
    def left() -> list[str]:
        names = (crd["metadata"]["name"] for crd in client.list("CustomResourceDefinition").items)
        return [n for n in names if name in (None, n)]
    for crd in left():
        try:
            client.delete("CustomResourceDefinition", crd)
        except StatusError as exc:
            if exc.reason != "NotFound":
                raise
    wait_until(lambda: not left(), 30, what=f"CRD {name or 'every CRD'} gone")
