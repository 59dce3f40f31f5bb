"""Custom kinds through real kubectl 1.33 beyond create and get: `explain` from their OpenAPI v3, discovery,
`scale` through the scale subresource, `get -w`, several versions, field validation."""
from __future__ import annotations

import json
import os

import pytest

from tests.conftest import control_plane
from tests.crds import scalable_crd, widget, widget_crd
from tests.e2e.conftest import running_gateway
from tests.e2e.test_kubectl import binary, kubectl_at, lines_until, ok, streaming
from testkit.people import token_of
from testkit.waiting import wait_until

pytestmark = pytest.mark.skipif(not os.path.exists(binary("1.33")), reason="no kubectl.1.33")


@pytest.fixture
def kube(procs, settings, tmp_path):
    """(a client, kubectl 1.33, kubectl 1.27) on a control plane with the CRD controller."""
    client = control_plane(procs, settings)
    procs.start("actors.controllers", "crd", label="crd-controller")
    with running_gateway(procs, settings, tmp_path) as (url, ca):
        token = token_of(settings, "admin")
        yield client, kubectl_at("1.33", tmp_path, url, ca, token), kubectl_at("1.27", tmp_path, url, ca, token)
    client.close()


def established(kubectl, crd: dict) -> None:
    ok(kubectl("apply", "-f", "-", stdin=json.dumps(crd)))
    ok(kubectl("wait", "--for=condition=Established", f"crd/{crd['metadata']['name']}", "--timeout=30s"))
    wait_until(lambda: kubectl("get", crd["spec"]["names"]["plural"]).returncode == 0, 30, what="served")


def test_kubectl_explain_reads_the_custom_schema(kube):
    _, kubectl, _ = kube
    established(kubectl, widget_crd())
    out = ok(kubectl("explain", "widget.spec"))
    assert "GROUP:      example.com" in out and "KIND:       Widget" in out and "VERSION:    v1" in out
    assert "size\t<string> -required-" in out and "replicas\t<integer>" in out
    assert "enum: small, large" in out
    assert "ObjectMeta" in ok(kubectl("explain", "widgets.metadata"))


def test_api_resources_list_the_custom_kind_through_aggregated_discovery(kube):
    _, kubectl, old = kube
    established(kubectl, scalable_crd())
    for client in (kubectl, old):  # 1.33 asks for apidiscovery v2, 1.27 for v2beta1
        line = next(line for line in ok(client("api-resources", "-o", "wide")).splitlines()
                    if line.startswith("widgets "))
        assert line.split()[:5] == ["widgets", "wd", "example.com/v1", "true", "Widget"] and "watch" in line
    assert "widgets" in ok(kubectl("api-resources", "--api-group=example.com", "-o", "name"))


def test_kubectl_scale_a_widget_through_its_scale_subresource(kube):
    client, kubectl, _ = kube
    established(kubectl, scalable_crd())
    ok(kubectl("apply", "-f", "-", stdin=json.dumps(widget("w1", replicas=1))))
    assert ok(kubectl("scale", "widget/w1", "--replicas=3")).strip() == "widget.example.com/w1 scaled"
    assert client.get("Widget", "w1", "default")["spec"]["replicas"] == 3
    scale = json.loads(ok(kubectl("get", "--raw", "/apis/example.com/v1/namespaces/default/widgets/w1/scale")))
    assert scale["spec"] == {"replicas": 3} and scale["status"] == {"replicas": 0, "selector": ""}
    refused = kubectl("scale", "widget/w1", "--replicas=11")  # the schema's maximum holds through /scale
    assert refused.returncode != 0 and "spec.replicas in body should be less than or equal to 10" in refused.stderr


def test_kubectl_get_widgets_watch(kube):
    _, kubectl, _ = kube
    established(kubectl, widget_crd())
    ok(kubectl("apply", "-f", "-", stdin=json.dumps(widget("w1"))))
    watcher = streaming(kubectl, "get", "widgets", "-w", "--no-headers")
    patched = []

    def seen(lines: list[str]) -> bool:
        if not patched and any(line.startswith("w1 ") for line in lines):  # listed: now change it
            patched.append(ok(kubectl("patch", "widget", "w1", "--type=merge", "-p", '{"spec":{"size":"large"}}')))
        return any(line.split()[:2] == ["w1", "large"] for line in lines)
    lines = lines_until(watcher, seen, "w1's change watched")
    assert [line.split()[1] for line in lines if line.startswith("w1 ")] == ["small", "large"]


def two_versions() -> dict:
    crd = widget_crd()
    v1 = crd["spec"]["versions"][0]
    v1["selectableFields"] = [{"jsonPath": ".spec.color"}]
    crd["spec"]["versions"] = [{**json.loads(json.dumps(v1)), "name": "v1beta1", "storage": False, "deprecated": True},
                               v1]
    return crd


def test_two_versions_served_one_stored_and_the_deprecated_one_warns(kube):
    client, kubectl, _ = kube
    established(kubectl, two_versions())
    sent = {**widget("w1", color="red"), "apiVersion": "example.com/v1beta1"}
    made = kubectl("apply", "-f", "-", stdin=json.dumps(sent))
    assert made.returncode == 0, made.stderr
    warning = "Warning: example.com/v1beta1 Widget is deprecated; use example.com/v1 Widget"
    assert warning in made.stderr
    assert client.get("Widget", "w1", "default")["apiVersion"] == "example.com/v1"  # stored as v1
    old = kubectl("get", "widgets.v1beta1.example.com", "w1", "-o", "json")
    assert json.loads(old.stdout)["apiVersion"] == "example.com/v1beta1" and warning in old.stderr
    assert json.loads(ok(kubectl("get", "widgets", "w1", "-o", "json")))["apiVersion"] == "example.com/v1"
    ok(kubectl("apply", "-f", "-", stdin=json.dumps(widget("w2", color="blue"))))
    assert ok(kubectl("get", "widgets", "--field-selector=spec.color=blue", "-o", "name")).split() == [
        "widget.example.com/w2"]
    refused = kubectl("get", "widgets", "--field-selector=spec.size=small")
    assert refused.returncode != 0 and "field label not supported: spec.size" in refused.stderr


@pytest.mark.parametrize("flags, created, said", [
    ((), False, 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: '
                'unknown field "spec.bogus"'),
    (("--validate=warn",), True, 'Warning: unknown field "spec.bogus"'),
])
def test_unknown_fields_of_a_widget(kube, flags, created, said):
    client, kubectl, _ = kube
    established(kubectl, widget_crd())
    done = kubectl("apply", *flags, "-f", "-", stdin=json.dumps(widget("w1", bogus=1)))
    assert (done.returncode == 0) == created and said in done.stderr, done.stderr
    if created:
        assert "bogus" not in client.get("Widget", "w1", "default")["spec"]  # pruned


def test_the_python_client_watches_widgets(kube, settings, tmp_path):
    from kubernetes import client as k8s, watch
    from tests.e2e.test_python_client import client_for
    client, kubectl, _ = kube
    established(kubectl, widget_crd())
    ok(kubectl("apply", "-f", "-", stdin=json.dumps(widget("w1"))))
    server = ok(kubectl("config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}"))
    ca = ok(kubectl("config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.certificate-authority}"))
    with client_for(server, ca, token_of(settings, "admin")) as api_client:
        api = k8s.CustomObjectsApi(api_client)
        listed = api.list_namespaced_custom_object("example.com", "v1", "default", "widgets")
        rv = listed["metadata"]["resourceVersion"]
        client.patch("Widget", "w1", {"spec": {"size": "large"}}, "default")
        events = watch.Watch().stream(api.list_namespaced_custom_object, "example.com", "v1", "default", "widgets",
                                      resource_version=rv, timeout_seconds=10)
        event = next(events)
        assert (event["type"], event["object"]["spec"]["size"]) == ("MODIFIED", "large")
        assert event["object"]["apiVersion"] == "example.com/v1"
