"""The official Kubernetes Python client against kubus through the gateway (k8s-rest-api.md §6.2):
version, lists with label selectors in a namespace and across all, create, read, the three patch
types, a conflict, a watch from a list's resourceVersion (in order, with bookmarks), 410 for a
version the gateway's window has moved past, errors as Status, delete with a propagation policy,
logs."""
from __future__ import annotations

import json

import pytest
from kubernetes import client as k8s
from kubernetes import watch

from testkit.people import token_of
from tests.e2e.conftest import running_gateway
from testkit.waiting import wait_until
from tests.integration.test_kubelet import phase

MERGE = "application/merge-patch+json"
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "py1", "labels": {"app": "py"}},
       "spec": {"containers": [{"name": "c", "image": "busybox", "command": ["sleep", "60"]}]}}
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
              "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": {"app": "web"}},
                                    "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}}


def pod(name: str, **labels: str) -> dict:
    return {**POD, "metadata": {"name": name, "labels": labels}}


def client_for(url: str, ca, token: str) -> k8s.ApiClient:
    config = k8s.Configuration(host=url)
    config.ssl_ca_cert = str(ca)
    config.api_key = {"authorization": f"Bearer {token}"}
    return k8s.ApiClient(config)


@pytest.fixture
def api(cluster, settings, gateway):
    with client_for(*gateway, token_of(settings, "admin")) as api_client:
        yield api_client


def status_of(error: k8s.ApiException) -> dict:
    """The Kubernetes Status an error answer carries."""
    body = json.loads(error.body)
    assert (body["kind"], body["apiVersion"], body["status"], body["code"]) == ("Status", "v1", "Failure", error.status)
    return body


def not_found(read) -> dict | None:
    """The Status of a read answered 404, None while the object is there."""
    try:
        read()
        return None
    except k8s.ApiException as error:
        return status_of(error) if error.status == 404 else None


def names(items) -> list[str]:
    return sorted(f"{item.metadata.namespace}/{item.metadata.name}" for item in items)


@pytest.mark.shared_plane
def test_lists_select_by_label_in_a_namespace_and_across_all(api, namespace):
    core = k8s.CoreV1Api(api)
    assert k8s.VersionApi(api).get_code().git_version == "v1.35.4-kubus"
    other = f"{namespace}-other"  # cluster-scoped: named after the test's namespace
    core.create_namespace({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": other}})
    for where, name, tier in [(namespace, "a", "front"), (namespace, "b", "back"), (other, "c", "front")]:
        core.create_namespaced_pod(where, pod(name, tier=tier))
    listed = core.list_namespaced_pod(namespace)
    assert names(listed.items) == [f"{namespace}/a", f"{namespace}/b"] and int(listed.metadata.resource_version) > 0
    assert names(core.list_namespaced_pod(namespace, label_selector="tier=front").items) == [f"{namespace}/a"]
    assert names(core.list_namespaced_pod(other, label_selector="tier!=front").items) == []
    everywhere = core.list_pod_for_all_namespaces(label_selector="tier in (front)")
    assert names(everywhere.items) == sorted([f"{namespace}/a", f"{other}/c"])
    assert names(core.list_pod_for_all_namespaces(field_selector="metadata.name=b").items) == [f"{namespace}/b"]
    core.delete_namespace(other)


@pytest.mark.shared_plane
def test_create_read_and_the_three_patch_types(api, namespace):
    core, apps = k8s.CoreV1Api(api), k8s.AppsV1Api(api)
    created = core.create_namespaced_pod(namespace, POD)
    assert created.metadata.uid and created.metadata.creation_timestamp and created.spec.restart_policy == "Always"
    assert apps.create_namespaced_deployment(namespace, DEPLOYMENT).spec.template.spec.containers[0].image == "nginx"
    assert core.read_namespaced_pod("py1", namespace).metadata.uid == created.metadata.uid

    core.patch_namespaced_pod("py1", namespace, {"metadata": {"labels": {"smp": "1"}}})  # a dict: strategic
    core.patch_namespaced_pod("py1", namespace, [{"op": "add", "path": "/metadata/annotations", "value": {"j": "1"}},
                                                 {"op": "test", "path": "/metadata/labels/smp", "value": "1"}])
    merged = core.patch_namespaced_pod("py1", namespace, {"metadata": {"labels": {"app": None, "m": "1"}}},
                                       _content_type=MERGE)
    assert merged.metadata.labels == {"smp": "1", "m": "1"} and merged.metadata.annotations == {"j": "1"}
    with pytest.raises(k8s.ApiException) as failed_test:
        core.patch_namespaced_pod("py1", namespace, [{"op": "test", "path": "/metadata/labels/m", "value": "2"},
                                                     {"op": "add", "path": "/metadata/labels/x", "value": "1"}])
    assert failed_test.value.status == 422 and status_of(failed_test.value)["reason"] == "Invalid"
    assert "x" not in core.read_namespaced_pod("py1", namespace).metadata.labels

    strategic = apps.patch_namespaced_deployment("web", namespace, {"spec": {"template": {"spec": {
        "containers": [{"name": "web", "env": [{"name": "X", "value": "1"}]}]}}}})
    container = strategic.spec.template.spec.containers[0]
    assert (container.image, container.env[0].name) == ("nginx", "X")  # merged into the container of that name
    merge = apps.patch_namespaced_deployment("web", namespace, {"spec": {"template": {"spec": {
        "containers": [{"name": "web", "image": "nginx:2"}]}}}}, _content_type=MERGE)
    assert [(c.image, c.env) for c in merge.spec.template.spec.containers] == [("nginx:2", None)]  # the list replaced
    json_patched = apps.patch_namespaced_deployment("web", namespace, [
        {"op": "replace", "path": "/spec/replicas", "value": 4}])
    assert json_patched.spec.replicas == 4
    assert apps.patch_namespaced_deployment_scale("web", namespace, {"spec": {"replicas": 3}}).spec.replicas == 3
    assert apps.read_namespaced_deployment("web", namespace).spec.replicas == 3

    stale = core.read_namespaced_pod("py1", namespace)
    stale.metadata.resource_version = created.metadata.resource_version
    with pytest.raises(k8s.ApiException) as conflict:
        core.replace_namespaced_pod("py1", namespace, stale)
    assert conflict.value.status == 409 and status_of(conflict.value)["reason"] == "Conflict"


@pytest.mark.shared_plane
def test_a_watch_from_a_lists_version_sees_every_change_in_order_then_a_bookmark(api, namespace):
    core = k8s.CoreV1Api(api)
    rv = core.list_namespaced_pod(namespace).metadata.resource_version
    core.create_namespaced_pod(namespace, POD)
    core.patch_namespaced_pod("py1", namespace, {"metadata": {"labels": {"v": "2"}}})
    core.delete_namespaced_pod("py1", namespace, grace_period_seconds=0)
    seen = [(event["type"], event["raw_object"]) for event in watch.Watch().stream(
        core.list_namespaced_pod, namespace, resource_version=rv, allow_watch_bookmarks=True, timeout_seconds=7)]
    changes = [(kind, obj["metadata"]["name"], obj["metadata"].get("labels")) for kind, obj in seen
               if kind != "BOOKMARK"]
    assert changes == [("ADDED", "py1", {"app": "py"}), ("MODIFIED", "py1", {"app": "py", "v": "2"}),
                       ("DELETED", "py1", {"app": "py", "v": "2"})]
    revisions = [int(obj["metadata"]["resourceVersion"]) for _, obj in seen]
    assert revisions == sorted(revisions) and revisions[0] > int(rv)
    # the gateway sends a BOOKMARK to a watch that asked once it has been quiet for 5 s, here after the changes
    bookmarks = [obj for kind, obj in seen if kind == "BOOKMARK"]
    assert bookmarks and seen[-1][0] == "BOOKMARK"
    assert bookmarks[0]["kind"] == "Pod" and int(bookmarks[0]["metadata"]["resourceVersion"]) >= revisions[2]


@pytest.fixture
def small_window(cluster, procs, settings, tmp_path):
    """A gateway whose watch caches keep the last 3 changes, and a client of it."""
    with running_gateway(procs, settings, tmp_path, KUBUS_GATEWAY_WATCH_WINDOW="3") as (url, ca):
        with client_for(url, ca, token_of(settings, "admin")) as api_client:
            yield api_client


def test_a_version_the_window_has_moved_past_is_410_and_one_inside_it_replays(small_window):
    core = k8s.CoreV1Api(small_window)
    core.list_namespaced_pod("default")  # the person's window of default's pods starts here
    revisions = [core.create_namespaced_pod("default", POD).metadata.resource_version]
    for n in range(4):
        revisions.append(core.patch_namespaced_pod("py1", "default", {"metadata": {"labels": {"n": str(n)}}})
                         .metadata.resource_version)
    # five changes, three kept: a watch may resume from the second change on, and replays the last three
    replayed = []
    for event in watch.Watch().stream(core.list_namespaced_pod, "default", resource_version=revisions[1],
                                      timeout_seconds=10):
        replayed.append((event["type"], event["object"].metadata.resource_version))
        if len(replayed) == 3:
            break
    assert replayed == [("MODIFIED", rv) for rv in revisions[2:]]
    with pytest.raises(k8s.ApiException) as expired:  # no timeout: the helper retries once after a 410
        for _ in watch.Watch().stream(core.list_namespaced_pod, "default", resource_version=revisions[0],
                                      _request_timeout=10):
            pass
    assert expired.value.status == 410
    assert expired.value.reason == f"Expired: too old resource version: {revisions[0]} ({revisions[1]})"


@pytest.mark.shared_plane
def test_errors_are_kubernetes_status_objects(api, namespace):
    core = k8s.CoreV1Api(api)
    status = not_found(lambda: core.read_namespaced_pod("nope", namespace))
    assert (status["reason"], status["message"]) == ("NotFound", 'pods "nope" not found')
    assert status["details"] == {"name": "nope", "kind": "pods"}

    bad = {**POD, "metadata": {"name": "Bad_Name"}, "spec": {"containers": [{"name": "c"}]}}
    with pytest.raises(k8s.ApiException) as invalid:
        core.create_namespaced_pod(namespace, bad)
    assert invalid.value.status == 422
    status = status_of(invalid.value)
    assert status["reason"] == "Invalid" and status["message"].startswith('Pod "Bad_Name" is invalid: [')
    assert (status["details"]["name"], status["details"]["kind"]) == ("Bad_Name", "Pod")
    causes = {cause["field"]: cause for cause in status["details"]["causes"]}
    assert {"metadata.name", "spec.containers[0].image"} <= set(causes)
    assert causes["spec.containers[0].image"]["reason"] == "FieldValueRequired"
    assert causes["metadata.name"]["reason"] == "FieldValueInvalid"


def test_a_foreground_delete_is_held_until_the_garbage_collector_releases_it(api, procs):
    apps = k8s.AppsV1Api(api)
    apps.create_namespaced_deployment("default", DEPLOYMENT)
    apps.delete_namespaced_deployment("web", "default", propagation_policy="Foreground")
    held = apps.read_namespaced_deployment("web", "default")
    assert held.metadata.deletion_timestamp and held.metadata.finalizers == ["foregroundDeletion"]
    procs.start("actors.controllers", "gc", label="gc")

    status = wait_until(lambda: not_found(lambda: apps.read_namespaced_deployment("web", "default")), 30,
                        what="the deployment to be gone")
    assert status["reason"] == "NotFound" and status["message"] == 'deployments.apps "web" not found'


def test_logs_and_a_graceful_delete(api, procs, cluster):
    procs.start("actors.scheduler")
    procs.start("actors.kubelet", "--node", "node-1", label="kubelet")
    core = k8s.CoreV1Api(api)
    core.create_namespaced_pod("default", {**POD, "spec": {"containers": [
        {"name": "c", "image": "busybox", "command": ["sh", "-c", "echo hello from py1; sleep 60"]}]}})
    wait_until(lambda: phase(cluster, "py1") == "Running", 30, what="py1 running")
    wait_until(lambda: core.read_namespaced_pod_log("py1", "default") == "hello from py1\n", 10, what="py1's log")
    core.delete_namespaced_pod("py1", "default", propagation_policy="Background", grace_period_seconds=5)
    assert core.read_namespaced_pod("py1", "default").metadata.deletion_grace_period_seconds == 5
    status = wait_until(lambda: not_found(lambda: core.read_namespaced_pod("py1", "default")), 30,
                        what="py1 to be gone")
    assert status["reason"] == "NotFound"
