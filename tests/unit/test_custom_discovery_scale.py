"""Aggregated discovery (which Accept asks for it; built-in and custom kinds folded with their subresources)
and the custom kinds' scale subresource over the CRD's paths."""
from __future__ import annotations

import pytest

from actors.gateway import aggregated
from api import customkinds, customscale
from api.status import StatusError
from tests.crds import scalable_crd, served_crd

V2 = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
V2BETA1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList"
PROTO_V2 = "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"


@pytest.fixture
def widgets():
    crd = served_crd(scalable_crd())
    customkinds.observe(crd)
    yield crd
    customkinds.forget(crd)


@pytest.mark.parametrize("accept, expected", [
    (f"{PROTO_V2},{V2},{V2BETA1},application/json", "v2"),  # kubectl 1.33: protobuf is skipped
    (f"{V2BETA1},application/json", "v2beta1"),  # kubectl 1.27
    ("application/json", None),
    ("application/json, */*", None),
    (None, None),
    ("application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,application/json", None),
])
def test_which_accept_asks_for_aggregated_discovery(accept, expected):
    assert aggregated.asked(accept) == expected


def test_core_group_alone_under_api_with_its_subresources_folded():
    found = aggregated.group_list("v2", core=True)
    assert found["apiVersion"] == "apidiscovery.k8s.io/v2" and [g["metadata"]["name"] for g in found["items"]] == [""]
    pods = next(r for r in found["items"][0]["versions"][0]["resources"] if r["resource"] == "pods")
    assert pods["scope"] == "Namespaced" and pods["responseKind"] == {"group": "", "version": "", "kind": "Pod"}
    assert pods["shortNames"] == ["po"] and "watch" in pods["verbs"]
    eviction = next(s for s in pods["subresources"] if s["subresource"] == "eviction")
    assert eviction["responseKind"] == {"group": "policy", "version": "v1", "kind": "Eviction"}


def test_custom_kinds_are_listed_with_status_and_scale(widgets):
    groups = {g["metadata"]["name"]: g for g in aggregated.group_list("v2beta1", core=False)["items"]}
    assert "" not in groups and "apps" in groups
    [version] = groups["example.com"]["versions"]
    assert version["version"] == "v1" and version["freshness"] == "Current"
    [widget] = version["resources"]
    assert widget["responseKind"] == {"group": "example.com", "version": "v1", "kind": "Widget"}
    assert widget["singularResource"] == "widget" and widget["categories"] == ["all"]
    assert {s["subresource"]: s["responseKind"]["kind"] for s in widget["subresources"]} == {
        "status": "Widget", "scale": "Scale"}


SCALE = {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.ready",
         "labelSelectorPath": ".status.selector"}
META = {"name": "w", "namespace": "default", "resourceVersion": "7"}


@pytest.mark.parametrize("obj, spec, status", [
    ({"spec": {"replicas": 2}, "status": {"ready": 1, "selector": "app=w"}}, {"replicas": 2},
     {"replicas": 1, "selector": "app=w"}),
    ({"spec": {"replicas": 0}}, {"replicas": 0}, {"replicas": 0, "selector": ""}),
])
def test_scale_of_a_custom_object(obj, spec, status):
    scale = customscale.scale_of(SCALE, {"metadata": META, **obj})
    assert (scale["kind"], scale["apiVersion"]) == ("Scale", "autoscaling/v1")
    assert (scale["spec"], scale["status"]) == (spec, status)
    assert scale["metadata"]["resourceVersion"] == "7"


def test_a_missing_spec_replicas_field_is_a_500_as_in_kubernetes():
    with pytest.raises(StatusError) as caught:
        customscale.scale_of(SCALE, {"metadata": META, "spec": {}})
    assert caught.value.code == 500
    assert caught.value.message == 'the spec replicas field ".spec.replicas" does not exist'


@pytest.mark.parametrize("replicas", [-1, "3", True, 2**31, None])
def test_scaled_refuses_what_is_no_non_negative_int32(replicas):
    with pytest.raises(StatusError) as caught:
        customscale.scaled(SCALE, {"metadata": META, "spec": {}}, replicas, "w")
    assert caught.value.code == 422 and caught.value.message.endswith("should be a non-negative integer")


def test_scaled_sets_the_spec_path_creating_parents():
    assert customscale.scaled({"specReplicasPath": ".spec.size.count"}, {"metadata": META}, 4, "w")["spec"] == {
        "size": {"count": 4}}
