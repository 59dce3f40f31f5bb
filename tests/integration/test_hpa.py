"""The HorizontalPodAutoscaler controller with real actors on hollow nodes: a target below minReplicas is
scaled up to it through its spec.replicas, the HPA's status and conditions follow with Kubernetes' reasons
(the resource metrics API's absence as FailedGetResourceMetric), a missing target is FailedGetScale; with
the kubelets' usage (simulated, set by annotation) kept by the metrics actor, high usage scales up and low
usage scales back down after the (shortened) window."""
from __future__ import annotations

import pytest

from actors.kubelet.runtimes.simulated import CPU, MEMORY
from testkit.waiting import wait_until


@pytest.fixture(scope="module")
def hpa_controller(plane) -> None:
    """The HPA controller, syncing every second, on the module's plane."""
    plane.procs.start("actors.controllers", "hpa", label="hpa-controller", KUBUS_HPA_SYNC_PERIOD_S="1")


@pytest.fixture
def scaling(apps, hpa_controller):
    """`apps` on the module's plane (a test that takes it is marked `shared_plane`), with the HPA controller."""
    return apps


def deployment(name: str, replicas: int) -> dict:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels}, "spec": {"containers": [
                         {"name": "c", "image": "busybox", "resources": {"requests": {"cpu": "100m"}}}]}}}}


def hpa(name: str, target: str, low: int, high: int) -> dict:
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": name},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": target},
                     "minReplicas": low, "maxReplicas": high,
                     "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                         "type": "Utilization", "averageUtilization": 50}}}]}}


def status_of(client, name: str) -> dict:
    return client.get("HorizontalPodAutoscaler", name).get("status") or {}


def condition(client, name: str, type_: str, reason: str, timeout: float = 30) -> dict:
    def found():
        status = client.get("HorizontalPodAutoscaler", name).get("status") or {}
        return next((c for c in status.get("conditions") or [] if c["type"] == type_ and c["reason"] == reason),
                    None)
    return wait_until(found, timeout, what=f"hpa {name}: {type_} {reason}")


@pytest.mark.shared_plane  # the module's plane (nodes, controllers), a namespace of its own
def test_below_min_replicas_scales_up_to_min_and_reports_the_missing_metrics(scaling):
    scaling.create(deployment("web", 1))
    scaling.create(hpa("web", "web", 3, 5))
    wait_until(lambda: scaling.get("Deployment", "web")["spec"]["replicas"] == 3, 30,
               what="the deployment scaled to minReplicas")
    status = wait_until(lambda: status_of(scaling, "web").get("lastScaleTime") and status_of(scaling, "web"), 30,
                        what="the rescale in the status")  # written after the target's patch is answered
    assert status["desiredReplicas"] == 3
    failed = condition(scaling, "web", "ScalingActive", "FailedGetResourceMetric")
    assert failed["status"] == "False"
    assert failed["message"].startswith("the HPA was unable to compute the replica count: unable to get metrics for "
                                        "resource cpu: unable to fetch metrics from resource metrics API")
    assert condition(scaling, "web", "AbleToScale", "SucceededGetScale")["status"] == "True"


@pytest.mark.shared_plane  # the module's plane (nodes, controllers), a namespace of its own
def test_a_missing_target_is_failed_get_scale(scaling):
    scaling.create(hpa("lost", "nowhere", 1, 3))
    got = condition(scaling, "lost", "AbleToScale", "FailedGetScale")
    assert got["status"] == "False"
    assert got["message"] == ("the HPA controller was unable to get the target's current scale: "
                              'deployments.apps "nowhere" not found')


@pytest.fixture
def measured(procs, request):
    """Hollow nodes sending their usage every second, the metrics actor, and the HPA controller with a 5 s
    scale-down window: a cluster of its own (its actors' settings, and metrics the other tests must not have)."""
    procs.env.update(KUBUS_METRICS_RESOLUTION_S="1", KUBUS_HPA_SYNC_PERIOD_S="1", KUBUS_HPA_DOWNSCALE_WINDOW_S="5")
    client = request.getfixturevalue("apps")
    procs.start("actors.metrics", label="metrics-server")
    procs.start("actors.controllers", "hpa", label="hpa-controller")
    return client


def busy(name: str, replicas: int, cpu: str) -> dict:
    obj = deployment(name, replicas)
    obj["spec"]["template"]["metadata"]["annotations"] = {CPU: cpu, MEMORY: "64Mi"}
    return obj


def replicas(client, name: str) -> int:
    return client.get("Deployment", name, "default")["spec"]["replicas"]


def test_usage_high_scales_up_and_low_scales_back_after_the_window(measured):
    measured.create(busy("burn", 1, "200m"))
    items = wait_until(lambda: measured.list("PodMetrics", "default", label_selector="app=burn").items, 30,
                       what="the pod's metrics")
    usage = items[0]["containers"][0]["usage"]
    assert usage["memory"] == "64Mi" and 150_000_000 <= int(usage["cpu"].rstrip("n")) <= 250_000_000
    measured.create(hpa("burn", "burn", 1, 5))
    wait_until(lambda: replicas(measured, "burn") == 5, 60, what="scaled up to maxReplicas")
    status = wait_until(lambda: status_of(measured, "burn").get("desiredReplicas") == 5 and status_of(measured, "burn"),
                        30, what="the HPA's status at 5")
    assert status["currentMetrics"][0]["resource"]["current"]["averageUtilization"] >= 100
    measured.patch("Deployment", "burn", {"spec": {"template": {"metadata": {"annotations": {CPU: "5m"}}}}},
                   "default")
    wait_until(lambda: replicas(measured, "burn") == 1, 90, what="scaled back down to minReplicas")
    assert condition(measured, "burn", "ScalingActive", "ValidMetricFound")["message"] == (
        "the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of "
        "request)")
    current = measured.get("HorizontalPodAutoscaler", "burn", "default")["status"]["currentMetrics"][0]
    assert current["resource"]["current"]["averageUtilization"] < 50
