"""CustomResourceDefinitions with real actors: a CRD is Established by the CRD controller, its kind is
served (created, listed with selectors, watched, patched, status written, deleted), a name conflict is
refused NamesAccepted, and deleting the CRD deletes its objects before the CRD goes."""
from __future__ import annotations

import pytest

from api.status import StatusError
from testkit.waiting import wait_until
from tests.crds import widget, widget_crd


pytestmark = pytest.mark.shared_plane  # one control plane for the module, a namespace per test
PLANE_ACTORS = [("actors.controllers", "crd")]



def established(client, name: str) -> dict:
    def ready():
        crd = client.get("CustomResourceDefinition", name)
        conditions = {c["type"]: c for c in (crd.get("status") or {}).get("conditions") or []}
        return crd if conditions.get("Established", {}).get("status") == "True" else None
    return wait_until(ready, 30, what=f"CRD {name} Established")


def test_crd_established_and_objects_served(crds):
    crds.create(widget_crd())
    crd = established(crds, "widgets.example.com")
    conditions = {c["type"]: c for c in crd["status"]["conditions"]}
    assert conditions["NamesAccepted"]["reason"] == "NoConflicts"
    assert crd["status"]["acceptedNames"]["listKind"] == "WidgetList"
    assert crd["status"]["storedVersions"] == ["v1"]

    created = wait_until(lambda: _try_create(crds, widget("w1", color="red")), 10, what="Widget served")
    assert created["spec"]["replicas"] == 1  # defaulted
    here = crds.namespace
    crds.create({**widget("w2"), "metadata": {"name": "w2", "labels": {"tier": "b"}}, "extra": 1}, here)
    assert "extra" not in crds.get("Widget", "w2", here)  # pruned
    assert [w["metadata"]["name"] for w in crds.list("Widget", here, label_selector="tier=b").items] == ["w2"]

    with pytest.raises(StatusError) as bad:
        crds.create(widget("w3", replicas="many"), here)
    assert bad.value.reason == "Invalid"
    assert bad.value.message == ('Widget.example.com "w3" is invalid: spec.replicas: Invalid value: "string": '
                                 'spec.replicas in body must be of type integer: "string"')

    patched = crds.patch("Widget", "w1", {"spec": {"replicas": 3}, "status": {"ready": 9}}, here)
    assert patched["spec"]["replicas"] == 3 and "status" not in patched  # the main endpoint ignores status
    assert patched["metadata"]["generation"] == 2
    status = crds.update_status({**patched, "status": {"ready": 2}})
    assert status["status"] == {"ready": 2} and status["metadata"]["generation"] == 2

    crds.delete("Widget", "w2", here)
    assert [w["metadata"]["name"] for w in crds.list("Widget", here).items] == ["w1"]


def _try_create(client, obj, namespace: str | None = None):
    try:
        return client.create(obj, namespace or client.namespace)
    except StatusError as exc:
        if exc.reason == "NotFound":
            return None
        raise


def test_name_conflict_is_not_accepted(crds):
    crds.create(widget_crd())
    established(crds, "widgets.example.com")
    other = widget_crd()
    other["metadata"]["name"] = "gadgets.example.com"
    other["spec"]["names"] = {"plural": "gadgets", "kind": "Gadget", "shortNames": ["wd"]}
    crds.create(other)

    def verdict():
        conditions = (crds.get("CustomResourceDefinition", "gadgets.example.com").get("status") or {}).get(
            "conditions") or []
        return next((c for c in conditions if c["type"] == "NamesAccepted"), None)
    cond = wait_until(verdict, 30, what="NamesAccepted")
    assert (cond["status"], cond["reason"], cond["message"]) == \
        ("False", "ShortNamesConflict", '"wd" is already in use')


def test_deleting_the_crd_deletes_its_objects(crds):
    crds.create(widget_crd())
    established(crds, "widgets.example.com")
    wait_until(lambda: _try_create(crds, widget("w1")), 10, what="Widget served")
    crds.delete("CustomResourceDefinition", "widgets.example.com")

    def gone():
        try:
            crds.get("CustomResourceDefinition", "widgets.example.com")
        except StatusError as exc:
            return exc.reason == "NotFound"
        return False
    wait_until(gone, 30, what="the CRD deleted")
    with pytest.raises(StatusError) as missing:
        crds.list("Widget", crds.namespace)
    assert missing.value.reason == "NotFound"


def test_a_namespace_deletion_deletes_its_custom_objects(crds):
    team = f"{crds.namespace}-team"  # emptied and deleted by the plane's namespace controller
    crds.create(widget_crd())
    established(crds, "widgets.example.com")
    crds.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": team}})
    wait_until(lambda: _try_create(crds, {**widget("w1"), "metadata": {"name": "w1", "namespace": team}}, team),
               10, what="Widget served")
    crds.delete("Namespace", team)

    def namespace_gone():
        try:
            crds.get("Namespace", team)
        except StatusError as exc:
            return exc.reason == "NotFound"
        return False
    wait_until(namespace_gone, 30, what=f"namespace {team} deleted")
    assert crds.list("Widget", team).items == []
