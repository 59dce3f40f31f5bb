"""The official Kubernetes Python client against kubus through the gateway (k8s-rest-api.md §6.2):
version, lists with selectors, create, the three patch types, a conflict, a watch from a list's
resourceVersion with bookmarks, 410 for a version older than the gateway's window, scale, logs,
errors as Status, and delete."""
from __future__ import annotations

import pytest
from kubernetes import client as k8s
from kubernetes import watch

from tests.e2e.conftest import token_of
from tests.helpers import wait_until
from tests.integration.test_kubelet import phase

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "py1", "labels": {"app": "py"}},
       "spec": {"containers": [{"name": "c", "image": "busybox", "command": ["sleep", "60"]}]}}
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
              "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": {"app": "web"}},
                                    "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}}


@pytest.fixture
def api(cluster, settings, gateway):
    url, ca = gateway
    config = k8s.Configuration(host=url)
    config.ssl_ca_cert = str(ca)
    config.api_key = {"authorization": f"Bearer {token_of(settings, 'admin')}"}
    with k8s.ApiClient(config) as api_client:
        yield api_client


def test_reads_writes_and_patches(api):
    core, apps = k8s.CoreV1Api(api), k8s.AppsV1Api(api)
    assert k8s.VersionApi(api).get_code().git_version == "v1.35.4-kubus"
    core.create_namespaced_pod("default", POD)
    apps.create_namespaced_deployment("default", DEPLOYMENT)
    assert [p.metadata.name for p in core.list_namespaced_pod("default", label_selector="app=py").items] == ["py1"]
    assert "py1" in [p.metadata.name for p in core.list_pod_for_all_namespaces().items]

    core.patch_namespaced_pod("py1", "default", {"metadata": {"labels": {"smp": "1"}}})  # strategic
    core.patch_namespaced_pod("py1", "default", [{"op": "add", "path": "/metadata/annotations", "value": {"j": "1"}}])
    api.set_default_header("Content-Type", "application/merge-patch+json")
    try:
        core.patch_namespaced_pod("py1", "default", {"metadata": {"labels": {"app": None, "m": "1"}}})
    finally:
        api.default_headers.pop("Content-Type")
    pod = core.read_namespaced_pod("py1", "default")
    assert pod.metadata.labels == {"smp": "1", "m": "1"} and pod.metadata.annotations == {"j": "1"}

    patched = apps.patch_namespaced_deployment("web", "default", {"spec": {"template": {"spec": {
        "containers": [{"name": "web", "env": [{"name": "X", "value": "1"}]}]}}}})
    container = patched.spec.template.spec.containers[0]
    assert (container.image, container.env[0].name) == ("nginx", "X")  # merged by the container's name
    assert apps.patch_namespaced_deployment_scale("web", "default", {"spec": {"replicas": 3}}).spec.replicas == 3

    pod.metadata.resource_version = "1"
    with pytest.raises(k8s.ApiException) as conflict:
        core.replace_namespaced_pod("py1", "default", pod)
    assert conflict.value.status == 409 and '"reason":"Conflict"' in conflict.value.body.replace(" ", "")


def test_errors_are_status_objects(api):
    core = k8s.CoreV1Api(api)
    with pytest.raises(k8s.ApiException) as missing:
        core.read_namespaced_pod("nope", "default")
    assert missing.value.status == 404 and 'pods \\"nope\\" not found' in missing.value.body
    bad = {**POD, "metadata": {"name": "Bad_Name"}}
    with pytest.raises(k8s.ApiException) as invalid:
        core.create_namespaced_pod("default", bad)
    assert invalid.value.status == 422
    assert '"reason":"Invalid"' in invalid.value.body.replace(" ", "") and "metadata.name" in invalid.value.body


def test_watch_from_a_lists_version_with_bookmarks(api):
    core = k8s.CoreV1Api(api)
    rv = core.list_namespaced_pod("default").metadata.resource_version
    core.create_namespaced_pod("default", POD)
    core.patch_namespaced_pod("py1", "default", {"metadata": {"labels": {"v": "2"}}})
    core.delete_namespaced_pod("py1", "default", grace_period_seconds=0)
    seen = []
    for event in watch.Watch().stream(core.list_namespaced_pod, "default", resource_version=rv,
                                      allow_watch_bookmarks=True, timeout_seconds=7):
        name = event["object"].metadata.name if event["type"] != "BOOKMARK" else None
        seen.append((event["type"], name))
    changes = [change for change in seen if change[0] != "BOOKMARK"]
    assert changes[0] == ("ADDED", "py1") and changes[-1] == ("DELETED", "py1")
    assert {t for t, _ in changes[1:-1]} <= {"MODIFIED"}
    assert ("BOOKMARK", None) in seen  # a quiet watch that asked gets one every 5 s


def test_a_version_older_than_the_window_is_410(api):
    core = k8s.CoreV1Api(api)
    core.list_namespaced_pod("default")  # the window starts here
    with pytest.raises(k8s.ApiException) as expired:
        for _ in watch.Watch().stream(core.list_namespaced_pod, "default", resource_version="1", timeout_seconds=5):
            pass
    assert expired.value.status == 410


def test_logs_and_delete(api, procs, cluster):
    procs.start("actors.scheduler")
    procs.start("actors.kubelet", "--node", "node-1", label="kubelet")
    core = k8s.CoreV1Api(api)
    core.create_namespaced_pod("default", {**POD, "spec": {"containers": [
        {"name": "c", "image": "busybox", "command": ["sh", "-c", "echo hello from py1; sleep 60"]}]}})
    wait_until(lambda: phase(cluster, "py1") == "Running", 30, what="py1 running")
    assert "hello from py1" in core.read_namespaced_pod_log("py1", "default")
    core.delete_namespaced_pod("py1", "default", propagation_policy="Background")

    def gone() -> bool:
        try:
            core.read_namespaced_pod("py1", "default")
            return False
        except k8s.ApiException as exc:
            return exc.status == 404
    wait_until(gone, 30, what="py1 to be gone")
