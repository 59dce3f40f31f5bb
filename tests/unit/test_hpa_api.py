"""HorizontalPodAutoscaler admission (autoscaling/v2): SetDefaults (minReplicas, the CPU metric, a given
behavior completed), Kubernetes' validation messages (k8s-config-workloads.md §10), kubectl's columns and
the protobuf table."""
from __future__ import annotations

import pytest

from api.admission import admit
from api.printers.columns import header, row
from api.protobuf.schema import kind_message
from api.status import StatusError

CPU_50 = {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}


def hpa(**spec) -> dict:
    return {"metadata": {"name": "web"},
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
                     "maxReplicas": 5, **spec}}


def refusal(body: dict) -> str:
    with pytest.raises(StatusError) as caught:
        admit("HorizontalPodAutoscaler", body, "default")
    assert caught.value.reason == "Invalid"
    return caught.value.message


def test_defaults_min_replicas_and_cpu_at_80_percent():
    spec = admit("HorizontalPodAutoscaler", hpa(), "default")["spec"]
    assert spec["minReplicas"] == 1
    assert spec["metrics"] == [{"type": "Resource", "resource": {"name": "cpu", "target": {
        "type": "Utilization", "averageUtilization": 80}}}]
    assert "behavior" not in spec


def test_a_given_behavior_is_completed_with_the_default_rules():
    behavior = admit("HorizontalPodAutoscaler", hpa(metrics=[CPU_50], behavior={
        "scaleDown": {"stabilizationWindowSeconds": 5}}), "default")["spec"]["behavior"]
    assert behavior["scaleUp"] == {"stabilizationWindowSeconds": 0, "selectPolicy": "Max", "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15}, {"type": "Percent", "value": 100, "periodSeconds": 15}]}
    assert behavior["scaleDown"] == {"stabilizationWindowSeconds": 5, "selectPolicy": "Max",
                                     "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}


@pytest.mark.parametrize("spec, message", [
    pytest.param({"minReplicas": 0}, "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
                 id="min"),
    pytest.param({"maxReplicas": 0}, "spec.maxReplicas: Invalid value: 0: must be greater than 0", id="max"),
    pytest.param({"minReplicas": 6}, "spec.maxReplicas: Invalid value: 5: must be greater than or equal to "
                 "`minReplicas`", id="max-below-min"),
    pytest.param({"scaleTargetRef": {"kind": "Deployment"}}, "spec.scaleTargetRef.name: Required value",
                 id="ref"),
    pytest.param({"metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
        "type": "Utilization", "averageUtilization": 50, "averageValue": "100m"}}}]},
        'spec.metrics[0].resource.target.averageValue: Invalid value: "100m": may not set both a target raw '
        'value and a target utilization', id="both-targets"),
    pytest.param({"metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization"}}}]},
                 "spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw "
                 "value or a target utilization", id="no-target"),
    pytest.param({"metrics": [{"type": "Resource", "pods": {}, "resource": CPU_50["resource"]}]},
                 "spec.metrics[0].pods: Forbidden: must populate the given metric source only", id="two-sources"),
    pytest.param({"metrics": [{"type": "Cpu"}]}, 'spec.metrics[0].type: Unsupported value: "Cpu": supported '
                 'values: "Object", "Pods", "Resource", "ContainerResource", "External"', id="type"),
    pytest.param({"behavior": {"scaleUp": {"policies": [{"type": "Pods", "value": 0, "periodSeconds": 1801}]}}},
                 "spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero",
                 id="policy-value"),
    pytest.param({"behavior": {"scaleUp": {"policies": [{"type": "Pods", "value": 1, "periodSeconds": 1801}]}}},
                 "spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 1801: must be less than or equal "
                 "to 1800", id="policy-period"),
    pytest.param({"behavior": {"scaleDown": {"stabilizationWindowSeconds": -1}}},
                 "spec.behavior.scaleDown.stabilizationWindowSeconds: Invalid value: -1: must be greater than or "
                 "equal to zero", id="window"),
    pytest.param({"behavior": {"scaleUp": {"tolerance": "-0.1"}}}, 'spec.behavior.scaleUp.tolerance: Invalid value: '
                 '"-0.1": must be greater than or equal to zero', id="tolerance"),
])
def test_refuses_with_kubernetes_messages(spec, message):
    assert message in refusal(hpa(**spec))


def test_kubectl_columns():
    obj = {**hpa(minReplicas=1, metrics=[CPU_50]),
           "status": {"currentReplicas": 3, "currentMetrics": [
               {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 44}}}]}}
    assert header("HorizontalPodAutoscaler", False, False) == ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS",
                                                               "REPLICAS", "AGE"]
    assert row("HorizontalPodAutoscaler", obj, False, False)[:6] == ["web", "Deployment/web", "cpu: 44%/50%", "1",
                                                                     "5", "3"]
    fresh = hpa(metrics=[CPU_50, {"type": "Resource", "resource": {"name": "memory", "target": {
        "type": "AverageValue", "averageValue": "100Mi"}}}, CPU_50])
    assert row("HorizontalPodAutoscaler", fresh, False, False)[2:4] == [
        "cpu: <unknown>/50%, memory: <unknown>/100Mi + 1 more...", "<unset>"]


def test_protobuf_table_knows_the_kind():
    assert kind_message("autoscaling/v2", "HorizontalPodAutoscaler") is not None


def test_kubus_describe_lines():
    from cli.describe_autoscaling import hpa_lines
    obj = admit("HorizontalPodAutoscaler", hpa(metrics=[CPU_50], behavior={}), "default")
    obj["status"] = {"currentReplicas": 2, "desiredReplicas": 3, "currentMetrics": [
        {"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": 80,
                                                                      "averageValue": "80m"}}}]}
    text = "\n".join(hpa_lines(obj))
    assert "Reference:      Deployment/web" in text
    assert "  resource cpu on pods  (as a percentage of request):  80% (80m) / 50%" in text
    assert "      - Type: Pods  Value: 4  Period: 15 seconds" in text
    assert text.endswith("Deployment pods:  2 current / 3 desired")
