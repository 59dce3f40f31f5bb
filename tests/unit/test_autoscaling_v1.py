"""autoscaling/v1's HorizontalPodAutoscaler converted to and from the stored v2 as Kubernetes converts it,
and listed in discovery beside v2 (v2 preferred)."""
import json

import pytest

from actors.gateway import discovery
from api.autoscalingv1 import BEHAVIOR, CONDITIONS, METRICS, to_v1, to_v2

REF = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
CPU = {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}
MEMORY = {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "100Mi"}}}
PODS = {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "10"}}}
EXTERNAL = {"type": "External", "external": {"metric": {"name": "queue", "selector": {"matchLabels": {"q": "a"}}},
                                             "target": {"type": "Value", "value": "30"}}}
OBJECT = {"type": "Object", "object": {"describedObject": {"kind": "Service", "name": "s", "apiVersion": "v1"},
                                       "metric": {"name": "hits"}, "target": {"type": "Value", "value": "5"}}}


def _v2(metrics, **spec):
    return {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"},
            "spec": {"scaleTargetRef": REF, "minReplicas": 1, "maxReplicas": 3, "metrics": metrics, **spec}}


def test_cpu_utilization_is_target_cpu_utilization_percentage():
    v1 = to_v1({**_v2([CPU]), "status": {"currentReplicas": 2, "desiredReplicas": 2, "currentMetrics": [
        {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 40}}}]}})
    assert v1["apiVersion"] == "autoscaling/v1" and "annotations" not in v1["metadata"]
    assert v1["spec"] == {"scaleTargetRef": REF, "minReplicas": 1, "maxReplicas": 3, "targetCPUUtilizationPercentage": 70}
    assert v1["status"] == {"currentReplicas": 2, "desiredReplicas": 2, "currentCPUUtilizationPercentage": 40}
    assert to_v2(v1)["spec"] == _v2([CPU])["spec"]


@pytest.mark.parametrize("metric", [MEMORY, PODS, EXTERNAL, OBJECT], ids=["resource", "pods", "external", "object"])
def test_other_metrics_ride_the_annotation_and_come_back(metric):
    behavior = {"scaleDown": {"stabilizationWindowSeconds": 60}}
    v1 = to_v1({**_v2([CPU, metric], behavior=behavior), "status": {"conditions": [{"type": "AbleToScale"}]}})
    annotations = v1["metadata"]["annotations"]
    assert json.loads(annotations[BEHAVIOR]) == behavior and json.loads(annotations[CONDITIONS])
    assert json.loads(annotations[METRICS])[0]["type"] == metric["type"]
    back = to_v2(v1)
    assert back["spec"] == _v2([CPU, metric], behavior=behavior)["spec"] and "annotations" not in back["metadata"]


def test_v1_without_a_cpu_target_has_no_metrics():
    v1 = {"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"},
          "spec": {"scaleTargetRef": REF, "maxReplicas": 3}}
    assert to_v2(v1)["spec"] == {"scaleTargetRef": REF, "maxReplicas": 3}


def test_discovery_lists_v1_with_v2_preferred():
    autoscaling = next(g for g in discovery.api_group_list()["groups"] if g["name"] == "autoscaling")
    assert [v["groupVersion"] for v in autoscaling["versions"]] == ["autoscaling/v2", "autoscaling/v1"]
    assert autoscaling["preferredVersion"]["groupVersion"] == "autoscaling/v2"
    names = [r["name"] for r in discovery.api_resource_list("autoscaling/v1")["resources"]]
    assert names == [r["name"] for r in discovery.api_resource_list("autoscaling/v2")["resources"]]
