"""The garbage collector and custom kinds: it follows a kind once its CRD is Established, so a ConfigMap
owned by a Widget goes with the Widget and a Widget owned by a Deployment goes with the Deployment; a
CRD deleted and made again is followed again."""
from __future__ import annotations

import pytest

from api.status import StatusError
from testkit.waiting import wait_until
from tests.crds import delete_crds, widget, widget_crd
from tests.integration.test_crd import established
from tests.integration.test_deployment import deployment

pytestmark = pytest.mark.shared_plane  # one control plane for the module, a namespace per test
PLANE_ACTORS = [("actors.controllers", "crd"), ("actors.controllers", "gc")]


@pytest.fixture
def collected(cluster):
    """The Widget CRD Established on the module's plane (its CRD controller and garbage collector
    running); gone again after the test."""
    cluster.create(widget_crd())
    established(cluster, "widgets.example.com")
    yield cluster
    delete_crds(cluster)


def _owned_by(owner: dict) -> dict:
    meta = owner["metadata"]
    return {"ownerReferences": [{"apiVersion": owner["apiVersion"], "kind": owner["kind"], "name": meta["name"],
                                 "uid": meta["uid"]}]}


def _gone(client, kind: str, name: str) -> bool:
    try:
        client.get(kind, name, client.namespace)
        return False
    except StatusError as exc:
        return exc.reason == "NotFound"


def _create_widget(client, obj: dict) -> dict:
    def served():
        try:
            return client.create(obj, client.namespace)
        except StatusError as exc:
            if exc.reason != "NotFound":
                raise
            return None
    return wait_until(served, 10, what="Widget served")


def test_a_configmap_owned_by_a_widget_goes_with_it(collected):
    here = collected.namespace
    owner = _create_widget(collected, widget("w1"))
    collected.create({"apiVersion": "v1", "kind": "ConfigMap",
                      "metadata": {"name": "w1-data", **_owned_by(owner)}, "data": {"k": "v"}}, here)
    kept = collected.create({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "other"}}, here)
    collected.delete("Widget", "w1", here)
    wait_until(lambda: _gone(collected, "ConfigMap", "w1-data"), 30, what="the Widget's ConfigMap collected")
    assert collected.get("ConfigMap", "other", here)["metadata"]["uid"] == kept["metadata"]["uid"]


def test_a_widget_owned_by_a_deployment_goes_with_it(collected):
    here = collected.namespace
    owner = collected.create(deployment("web", 0), here)
    _create_widget(collected, {**widget("w2"), "metadata": {"name": "w2", **_owned_by(owner)}})
    collected.delete("Deployment", "web", here)
    wait_until(lambda: _gone(collected, "Widget", "w2"), 30, what="the Deployment's Widget collected")


def test_a_crd_made_again_is_followed_again(collected):
    here = collected.namespace
    collected.delete("CustomResourceDefinition", "widgets.example.com")
    wait_until(lambda: _gone(collected, "CustomResourceDefinition", "widgets.example.com"), 30, what="CRD gone")
    collected.create(widget_crd())
    established(collected, "widgets.example.com")
    owner = _create_widget(collected, widget("w3"))
    collected.create({"apiVersion": "v1", "kind": "ConfigMap",
                      "metadata": {"name": "w3-data", **_owned_by(owner)}}, here)
    collected.delete("Widget", "w3", here)
    wait_until(lambda: _gone(collected, "ConfigMap", "w3-data"), 30, what="the new Widget's ConfigMap collected")
