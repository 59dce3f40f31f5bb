"""HorizontalPodAutoscaler (autoscaling/v2): the model, SetDefaults_HorizontalPodAutoscaler (minReplicas 1,
CPU at 80% when no metric is given, a given `behavior` completed with the default scaling rules), and the
words the controller and the printer share. Validation is `api/autoscaling_validation.py`; the decisions
`actors/controllers/hpasync.py`, the controller `actors/controllers/hpa.py`."""
from __future__ import annotations

import copy

from api.meta import K8sModel, Resource

DEFAULT_CPU_UTILIZATION = 80
SCALE_DOWN_WINDOW_S = 300  # the controller's --horizontal-pod-autoscaler-downscale-stabilization
MAX_PERIOD_S, MAX_WINDOW_S = 1800, 3600
POLICY_TYPES = ("Pods", "Percent")
SELECT_POLICIES = ("Max", "Min", "Disabled")
TARGET_TYPES = ("Utilization", "Value", "AverageValue")
METRIC_TYPES = ("Object", "Pods", "Resource", "ContainerResource", "External")
ABLE_TO_SCALE, SCALING_ACTIVE, SCALING_LIMITED = "AbleToScale", "ScalingActive", "ScalingLimited"


class CrossVersionObjectReference(K8sModel):
    kind: str = ""
    name: str = ""
    apiVersion: str | None = None


class MetricTarget(K8sModel):
    type: str = ""
    value: str | int | None = None
    averageValue: str | int | None = None
    averageUtilization: int | None = None


class MetricValueStatus(K8sModel):
    value: str | None = None
    averageValue: str | None = None
    averageUtilization: int | None = None


class ResourceMetricSource(K8sModel):
    name: str = ""
    target: MetricTarget = MetricTarget()


class ContainerResourceMetricSource(ResourceMetricSource):
    container: str = ""


class MetricSpec(K8sModel):
    type: str = ""
    resource: ResourceMetricSource | None = None
    containerResource: ContainerResourceMetricSource | None = None
    pods: dict | None = None  # kubus serves the resource metrics API only: kept, validated, not computed
    object: dict | None = None
    external: dict | None = None


class ResourceMetricStatus(K8sModel):
    name: str = ""
    current: MetricValueStatus = MetricValueStatus()


class ContainerResourceMetricStatus(ResourceMetricStatus):
    container: str = ""


class MetricStatus(K8sModel):
    type: str = ""
    resource: ResourceMetricStatus | None = None
    containerResource: ContainerResourceMetricStatus | None = None


class HPAScalingPolicy(K8sModel):
    type: str = ""
    value: int = 0
    periodSeconds: int = 0


class HPAScalingRules(K8sModel):
    stabilizationWindowSeconds: int | None = None
    selectPolicy: str | None = None
    policies: list[HPAScalingPolicy] | None = None
    tolerance: str | int | float | None = None


class HorizontalPodAutoscalerBehavior(K8sModel):
    scaleUp: HPAScalingRules | None = None
    scaleDown: HPAScalingRules | None = None


class HorizontalPodAutoscalerSpec(K8sModel):
    scaleTargetRef: CrossVersionObjectReference = CrossVersionObjectReference()
    minReplicas: int | None = None
    maxReplicas: int = 0
    metrics: list[MetricSpec] | None = None
    behavior: HorizontalPodAutoscalerBehavior | None = None


class HorizontalPodAutoscalerCondition(K8sModel):
    type: str
    status: str
    lastTransitionTime: str | None = None
    reason: str | None = None
    message: str | None = None


class HorizontalPodAutoscalerStatus(K8sModel):
    observedGeneration: int | None = None
    lastScaleTime: str | None = None
    currentReplicas: int | None = None
    desiredReplicas: int = 0
    currentMetrics: list[MetricStatus] | None = None
    conditions: list[HorizontalPodAutoscalerCondition] | None = None


class HorizontalPodAutoscaler(Resource):
    API_VERSION = "autoscaling/v2"
    KIND = "HorizontalPodAutoscaler"
    spec: HorizontalPodAutoscalerSpec = HorizontalPodAutoscalerSpec()
    status: HorizontalPodAutoscalerStatus | None = None


def scale_up_rules() -> dict:
    """GenerateHPAScaleUpRules' defaults: no window, the larger of +4 pods and +100% every 15 s."""
    return {"stabilizationWindowSeconds": 0, "selectPolicy": "Max",
            "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15},
                         {"type": "Percent", "value": 100, "periodSeconds": 15}]}


def scale_down_rules(window: int | None = None) -> dict:
    """GenerateHPAScaleDownRules' defaults: all pods may go in 15 s; the window is the controller's
    (`window` None leaves it unset in the object, as SetDefaults does)."""
    rules = {"selectPolicy": "Max", "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}
    if window is not None:
        rules["stabilizationWindowSeconds"] = window
    return rules


def _complete(given: dict | None, default: dict) -> dict:
    rules = copy.deepcopy(given) if given else {}
    for key, value in default.items():
        if rules.get(key) is None:
            rules[key] = value
    return rules


def defaults(obj: dict) -> None:
    spec = obj.setdefault("spec", {})
    if spec.get("minReplicas") is None:
        spec["minReplicas"] = 1
    if not spec.get("metrics"):
        spec["metrics"] = [{"type": "Resource", "resource": {"name": "cpu", "target": {
            "type": "Utilization", "averageUtilization": DEFAULT_CPU_UTILIZATION}}}]
    behavior = spec.get("behavior")
    if behavior is not None:
        behavior["scaleUp"] = _complete(behavior.get("scaleUp"), scale_up_rules())
        behavior["scaleDown"] = _complete(behavior.get("scaleDown"), scale_down_rules())
