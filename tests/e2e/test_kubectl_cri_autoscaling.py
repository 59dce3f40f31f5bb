"""The last proofs of issues 38 and 37 through real kubectl 1.33 on a cri node, one cluster for the module:
an HPA made with `kubectl autoscale` scales a Deployment of busybox CPU burners up (`kubectl top pods`
shows the burn, `kubectl get hpa` its TARGETS) and, once the burn stops, back down after the downscale
window (shortened here); kubectl in a pod (the kubus/kubectl image, the host's binary) reads pods
through its in-cluster config as a ServiceAccount bound to `view`, and is refused a delete with
Kubernetes' 403. Run it under `flock /tmp/kubus-hostnet.lock` (it changes the host's network)."""
from __future__ import annotations

import json
import os
import time

import pytest

from actors.kubelet.cri import containerd
from actors.proxy import nftables
from runtime.images import kubectl as kubectl_image
from tests.e2e.test_kubectl import binary, kubectl_at, ok
from tests.integration.cri.served import served_cri_cluster
from testkit.people import token_of
from testkit.waiting import wait_until

pytestmark = pytest.mark.skipif(not os.path.exists(binary("1.33")) or bool(containerd.available())
                                or not nftables.available(), reason="needs kubectl.1.33, containerd and nft")
BUSYBOX = "busybox:1.35"
DOWNSCALE_WINDOW_S = 5
BURN = ["sh", "-c", "while :; do :; done"]


@pytest.fixture(scope="module")
def kube(amqp_url, tmp_path_factory, request):
    """(kubectl as admin, the bus client, the procs): a cri node-1 with the deployment, replica-set, HPA and
    cluster-role aggregation controllers, the metrics actor (a sample a second), the proxy (the `kubernetes`
    Service) and the gateway; the HPA syncs every second and waits DOWNSCALE_WINDOW_S before it scales down."""
    env = {"KUBUS_METRICS_RESOLUTION_S": "1", "KUBUS_HPA_SYNC_PERIOD_S": "1",
           "KUBUS_HPA_DOWNSCALE_WINDOW_S": str(DOWNSCALE_WINDOW_S)}
    with served_cri_cluster(amqp_url, tmp_path_factory, request, env, _more_actors) as shared:
        yield kubectl_at("1.33", shared.tmp, shared.url, shared.ca, token_of(shared.settings, "admin")), \
            shared.client, shared.procs


def _more_actors(procs) -> None:
    for name in ("deployment", "replicaset", "hpa", "clusterrole-aggregation"):  # the last fills `view`
        procs.start("actors.controllers", name, label=f"{name}-controller")
    procs.start("actors.metrics", label="metrics-server")


def _apply(kubectl, obj: dict) -> None:
    ok(kubectl("apply", "-f", "-", stdin=json.dumps(obj)))


def _burner() -> dict:
    labels = {"app": "burner"}
    resources = {"requests": {"cpu": "100m"}, "limits": {"cpu": "200m"}}
    container = {"name": "burn", "image": BUSYBOX, "command": BURN, "resources": resources}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "burner"},
            "spec": {"replicas": 1, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"terminationGracePeriodSeconds": 1, "containers": [container]}}}}


def _jsonpath(kubectl, kind_name: str, path: str) -> str:
    result = kubectl("get", kind_name, "-o", f"jsonpath={path}")
    return result.stdout if result.returncode == 0 else ""


def _burning(kubectl) -> list[list[str]]:
    """`kubectl top pods` rows of the burners, once one burns 100m or more."""
    result = kubectl("top", "pods", "-l", "app=burner", "--no-headers")
    rows = [line.split() for line in result.stdout.splitlines()] if result.returncode == 0 else []
    return rows if any(int(row[1].rstrip("m")) >= 100 for row in rows if row[1].endswith("m")) else []


def test_an_hpa_scales_a_cpu_burner_up_and_back_down_after_the_window(kube):
    kubectl = kube[0]
    _apply(kubectl, _burner())
    ok(kubectl("rollout", "status", "deployment/burner", "--timeout=60s"))
    made = ok(kubectl("autoscale", "deployment", "burner", "--cpu-percent=50", "--min=1", "--max=3"))
    autoscaled = time.monotonic()
    assert made.strip() == "horizontalpodautoscaler.autoscaling/burner autoscaled"
    rows = wait_until(lambda: _burning(kubectl), 30, what="kubectl top pods showing the burn")
    assert all(int(row[1].rstrip("m")) <= 240 for row in rows), rows  # its limit is 200m
    wait_until(lambda: _jsonpath(kubectl, "deployment/burner", "{.spec.replicas}") == "3", 30,
               what="the HPA scaling the burner to its maximum")
    print(f"autoscale to three replicas: {time.monotonic() - autoscaled:.1f} s")
    row = ok(kubectl("get", "hpa", "burner", "--no-headers")).split()
    assert row[:2] == ["burner", "Deployment/burner"] and row[2] == "cpu:" and row[3].endswith("%/50%"), row
    assert int(row[3].split("%")[0]) >= 100 and row[4:6] == ["1", "3"], row
    ok(kubectl("rollout", "status", "deployment/burner", "--timeout=60s"))
    ok(kubectl("patch", "deployment", "burner", "--type=json", "-p", json.dumps(
        [{"op": "replace", "path": "/spec/template/spec/containers/0/command", "value": ["sleep", "3600"]}])))
    stopped, reasons = time.monotonic(), set()

    def scaled_down() -> bool:
        reasons.add(_jsonpath(kubectl, "hpa/burner", '{.status.conditions[?(@.type=="AbleToScale")].reason}'))
        return _jsonpath(kubectl, "deployment/burner", "{.spec.replicas}") == "1"
    wait_until(scaled_down, 60, 0.2, what="the HPA scaling the idle burner back down")
    took = time.monotonic() - stopped
    print(f"burn stopped to one replica: {took:.1f} s (downscale window {DOWNSCALE_WINDOW_S} s)")
    assert "ScaleDownStabilized" in reasons and took >= DOWNSCALE_WINDOW_S, reasons  # the window held it
    described = ok(kubectl("describe", "hpa", "burner"))
    assert "New size: 3; reason: cpu resource utilization (percentage of request) above target" in described
    assert "New size: 1; reason: All metrics below target" in described, described


def test_kubectl_in_a_pod_reads_pods_as_view_and_is_refused_a_delete(kube):
    kubectl = kube[0]
    image = f"kubus/kubectl:{kubectl_image.kubectl_version(kubectl_image.kubectl_binary())}"
    ok(kubectl("create", "serviceaccount", "watcher"))
    ok(kubectl("create", "rolebinding", "watcher-view", "--clusterrole=view", "--serviceaccount=default:watcher"))
    _apply(kubectl, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "kubectl"},
                     "spec": {"serviceAccountName": "watcher", "terminationGracePeriodSeconds": 1,
                              "containers": [{"name": "kubectl", "image": image, "command": ["sleep", "3600"]}]}})
    ok(kubectl("wait", "--for=condition=Ready", "pod/kubectl", "--timeout=60s"))
    wait_until(lambda: "pods" in _jsonpath(kubectl, "clusterrole/view", "{.rules[*].resources}"), 30,
               what="the view role aggregated")
    listed = ok(kubectl("exec", "kubectl", "--", "kubectl", "get", "pods", "-o", "name"))
    assert "pod/kubectl" in listed.split(), listed
    refused = kubectl("exec", "kubectl", "--", "kubectl", "delete", "pod", "kubectl")
    assert refused.returncode == 1, refused.stdout
    assert ('Error from server (Forbidden): pods "kubectl" is forbidden: User "system:serviceaccount:default:watcher" '
            'cannot delete resource "pods" in API group "" in the namespace "default"') in refused.stderr, refused.stderr
    assert _jsonpath(kubectl, "pod/kubectl", "{.status.phase}") == "Running"
