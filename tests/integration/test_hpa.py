"""The HorizontalPodAutoscaler controller with real actors on hollow nodes: a target below minReplicas is
scaled up to it through its spec.replicas, the HPA's status and conditions follow with Kubernetes' reasons
(the resource metrics API's absence as FailedGetResourceMetric), a missing target is FailedGetScale."""
from __future__ import annotations

import pytest

from testkit.waiting import wait_until


@pytest.fixture
def scaling(apps, procs):
    procs.start("actors.controllers", "hpa", label="hpa-controller", KUBUS_HPA_SYNC_PERIOD_S="1")
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


def condition(client, name: str, type_: str, reason: str, timeout: float = 30) -> dict:
    def found():
        status = client.get("HorizontalPodAutoscaler", name, "default").get("status") or {}
        return next((c for c in status.get("conditions") or [] if c["type"] == type_ and c["reason"] == reason),
                    None)
    return wait_until(found, timeout, what=f"hpa {name}: {type_} {reason}")


def test_below_min_replicas_scales_up_to_min_and_reports_the_missing_metrics(scaling):
    scaling.create(deployment("web", 1))
    scaling.create(hpa("web", "web", 3, 5))
    wait_until(lambda: scaling.get("Deployment", "web", "default")["spec"]["replicas"] == 3, 30,
               what="the deployment scaled to minReplicas")
    status = scaling.get("HorizontalPodAutoscaler", "web", "default")["status"]
    assert status["lastScaleTime"] and status["desiredReplicas"] == 3
    failed = condition(scaling, "web", "ScalingActive", "FailedGetResourceMetric")
    assert failed["status"] == "False"
    assert failed["message"].startswith("the HPA was unable to compute the replica count: unable to get metrics for "
                                        "resource cpu: unable to fetch metrics from resource metrics API")
    assert condition(scaling, "web", "AbleToScale", "SucceededGetScale")["status"] == "True"


def test_a_missing_target_is_failed_get_scale(scaling):
    scaling.create(hpa("lost", "nowhere", 1, 3))
    got = condition(scaling, "lost", "AbleToScale", "FailedGetScale")
    assert got["status"] == "False"
    assert got["message"] == ("the HPA controller was unable to get the target's current scale: "
                              'deployments.apps "nowhere" not found')
