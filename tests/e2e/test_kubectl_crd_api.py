"""Custom kinds through real kubectl 1.33 beyond create and get: `explain` from their OpenAPI v3, discovery,
`scale` through the scale subresource, `get -w`, several versions, field validation. The tests share
their module's control plane (with the CRD controller) and gateway, each in a namespace of its own with
its Widget kind in a group of its own (`group`), the CRD deleted after it."""
from __future__ import annotations

import json
import os

import pytest

from tests.crds import delete_crds, scalable_crd, widget, widget_crd
from tests.e2e.test_kubectl import binary, kubectl_at, lines_until, ok, streaming
from testkit.people import token_of
from testkit.waiting import wait_until

pytestmark = [pytest.mark.skipif(not os.path.exists(binary("1.33")), reason="no kubectl.1.33"),
              pytest.mark.shared_plane]  # one control plane and gateway for the module, a namespace per test
PLANE_ACTORS = [("actors.controllers", "crd")]


@pytest.fixture
def kube(cluster, settings, gateway, tmp_path, namespace):
    """(a client, kubectl 1.33, kubectl 1.27), all in the test's namespace."""
    url, ca = gateway
    token = token_of(settings, "admin")
    return (cluster, kubectl_at("1.33", tmp_path, url, ca, token, namespace),
            kubectl_at("1.27", tmp_path, url, ca, token, namespace))


@pytest.fixture
def group(cluster, namespace):
    """The test's own API group for its Widgets (a CRD is cluster-scoped): named after its namespace; the
    CRD is deleted after the test and gone before the next one starts."""
    group = f"{namespace}.example.com"
    yield group
    delete_crds(cluster, f"widgets.{group}")


def grouped(crd: dict, group: str) -> dict:
    """The Widget CRD in `group`."""
    crd["metadata"]["name"] = f"{crd['spec']['names']['plural']}.{group}"
    crd["spec"]["group"] = group
    return crd


def a_widget(group: str, name: str, **spec) -> dict:
    return {**widget(name, **spec), "apiVersion": f"{group}/v1"}


def established(kubectl, crd: dict) -> None:
    ok(kubectl("apply", "-f", "-", stdin=json.dumps(crd)))
    ok(kubectl("wait", "--for=condition=Established", f"crd/{crd['metadata']['name']}", "--timeout=30s"))
    wait_until(lambda: kubectl("get", crd["spec"]["names"]["plural"]).returncode == 0, 30, what="served")


def test_kubectl_explain_reads_the_custom_schema(kube, group):
    _, kubectl, _ = kube
    established(kubectl, grouped(widget_crd(), group))
    out = ok(kubectl("explain", "widget.spec"))
    assert f"GROUP:      {group}" in out and "KIND:       Widget" in out and "VERSION:    v1" in out
    assert "size\t<string> -required-" in out and "replicas\t<integer>" in out
    assert "enum: small, large" in out
    assert "ObjectMeta" in ok(kubectl("explain", "widgets.metadata"))


def test_api_resources_list_the_custom_kind_through_aggregated_discovery(kube, group):
    _, kubectl, old = kube
    established(kubectl, grouped(scalable_crd(), group))
    for client in (kubectl, old):  # 1.33 asks for apidiscovery v2, 1.27 for v2beta1
        line = next(line for line in ok(client("api-resources", "-o", "wide")).splitlines()
                    if line.startswith("widgets "))
        assert line.split()[:5] == ["widgets", "wd", f"{group}/v1", "true", "Widget"] and "watch" in line
    assert "widgets" in ok(kubectl("api-resources", f"--api-group={group}", "-o", "name"))


def test_kubectl_scale_a_widget_through_its_scale_subresource(kube, group):
    client, kubectl, _ = kube
    established(kubectl, grouped(scalable_crd(), group))
    ok(kubectl("apply", "-f", "-", stdin=json.dumps(a_widget(group, "w1", replicas=1))))
    assert ok(kubectl("scale", "widget/w1", "--replicas=3")).strip() == f"widget.{group}/w1 scaled"
    assert client.get("Widget", "w1", client.namespace)["spec"]["replicas"] == 3
    path = f"/apis/{group}/v1/namespaces/{client.namespace}/widgets/w1/scale"
    scale = json.loads(ok(kubectl("get", "--raw", path)))
    assert scale["spec"] == {"replicas": 3} and scale["status"] == {"replicas": 0, "selector": ""}
    refused = kubectl("scale", "widget/w1", "--replicas=11")  # the schema's maximum holds through /scale
    assert refused.returncode != 0 and "spec.replicas in body should be less than or equal to 10" in refused.stderr


def test_kubectl_get_widgets_watch(kube, group):
    _, kubectl, _ = kube
    established(kubectl, grouped(widget_crd(), group))
    ok(kubectl("apply", "-f", "-", stdin=json.dumps(a_widget(group, "w1"))))
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


def test_two_versions_served_one_stored_and_the_deprecated_one_warns(kube, group):
    client, kubectl, _ = kube
    established(kubectl, grouped(two_versions(), group))
    sent = {**widget("w1", color="red"), "apiVersion": f"{group}/v1beta1"}
    made = kubectl("apply", "-f", "-", stdin=json.dumps(sent))
    assert made.returncode == 0, made.stderr
    warning = f"Warning: {group}/v1beta1 Widget is deprecated; use {group}/v1 Widget"
    assert warning in made.stderr
    assert client.get("Widget", "w1", client.namespace)["apiVersion"] == f"{group}/v1"  # stored as v1
    old = kubectl("get", f"widgets.v1beta1.{group}", "w1", "-o", "json")
    assert json.loads(old.stdout)["apiVersion"] == f"{group}/v1beta1" and warning in old.stderr
    assert json.loads(ok(kubectl("get", "widgets", "w1", "-o", "json")))["apiVersion"] == f"{group}/v1"
    ok(kubectl("apply", "-f", "-", stdin=json.dumps(a_widget(group, "w2", color="blue"))))
    assert ok(kubectl("get", "widgets", "--field-selector=spec.color=blue", "-o", "name")).split() == [
        f"widget.{group}/w2"]
    refused = kubectl("get", "widgets", "--field-selector=spec.size=small")
    assert refused.returncode != 0 and "field label not supported: spec.size" in refused.stderr


@pytest.mark.parametrize("flags, created, said", [
    ((), False, 'Widget in version "v1" cannot be handled as a Widget: strict decoding error: '
                'unknown field "spec.bogus"'),
    (("--validate=warn",), True, 'Warning: unknown field "spec.bogus"'),
])
def test_unknown_fields_of_a_widget(kube, group, flags, created, said):
    client, kubectl, _ = kube
    established(kubectl, grouped(widget_crd(), group))
    done = kubectl("apply", *flags, "-f", "-", stdin=json.dumps(a_widget(group, "w1", bogus=1)))
    assert (done.returncode == 0) == created and said in done.stderr, done.stderr
    if created:
        assert "bogus" not in client.get("Widget", "w1", client.namespace)["spec"]  # pruned


def test_the_python_client_watches_widgets(kube, group, settings, tmp_path):
    from kubernetes import client as k8s, watch
    from tests.e2e.test_python_client import client_for
    client, kubectl, _ = kube
    ns = client.namespace
    established(kubectl, grouped(widget_crd(), group))
    ok(kubectl("apply", "-f", "-", stdin=json.dumps(a_widget(group, "w1"))))
    server = ok(kubectl("config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}"))
    ca = ok(kubectl("config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.certificate-authority}"))
    with client_for(server, ca, token_of(settings, "admin")) as api_client:
        api = k8s.CustomObjectsApi(api_client)
        listed = api.list_namespaced_custom_object(group, "v1", ns, "widgets")
        rv = listed["metadata"]["resourceVersion"]
        client.patch("Widget", "w1", {"spec": {"size": "large"}}, ns)
        events = watch.Watch().stream(api.list_namespaced_custom_object, group, "v1", ns, "widgets",
                                      resource_version=rv, timeout_seconds=10)
        event = next(events)
        assert (event["type"], event["object"]["spec"]["size"]) == ("MODIFIED", "large")
        assert event["object"]["apiVersion"] == f"{group}/v1"
