"""k8s.io.api.autoscaling.v2 messages: the ones the kinds kubus serves reach, in api/protobuf/schema.py's notation.
Facts of kubernetes/api autoscaling/v2/generated.proto (field numbers, types), with the JSON names and
`omitempty`/pointer of its types.go. The Pods, Object and External sources kubus keeps but does not compute
are not listed."""
PACKAGE = "autoscalingv2"
API_VERSION = "autoscaling/v2"
KINDS = """HorizontalPodAutoscaler HorizontalPodAutoscalerList"""
MESSAGES = """
HorizontalPodAutoscaler metadata=1:meta.ObjectMeta spec=2:HorizontalPodAutoscalerSpec
  status=3:HorizontalPodAutoscalerStatus
HorizontalPodAutoscalerList metadata=1:meta.ListMeta items=2:[]HorizontalPodAutoscaler
HorizontalPodAutoscalerSpec scaleTargetRef=1:CrossVersionObjectReference minReplicas=2:i32! maxReplicas=3:i32!
  metrics=4:[]MetricSpec behavior=5:HorizontalPodAutoscalerBehavior
CrossVersionObjectReference kind=1:s! name=2:s! apiVersion=3:s
MetricSpec type=1:s! resource=4:ResourceMetricSource containerResource=7:ContainerResourceMetricSource
ResourceMetricSource name=1:s! target=2:MetricTarget
ContainerResourceMetricSource name=1:s! target=2:MetricTarget container=3:s!
MetricTarget type=1:s! value=2:qty averageValue=3:qty averageUtilization=4:i32!
HorizontalPodAutoscalerBehavior scaleUp=1:HPAScalingRules scaleDown=2:HPAScalingRules
HPAScalingRules selectPolicy=1:s! policies=2:[]HPAScalingPolicy stabilizationWindowSeconds=3:i32! tolerance=4:qty
HPAScalingPolicy type=1:s! value=2:i32! periodSeconds=3:i32!
HorizontalPodAutoscalerStatus observedGeneration=1:i64! lastScaleTime=2:time currentReplicas=3:i32
  desiredReplicas=4:i32! currentMetrics=5:[]MetricStatus conditions=6:[]HorizontalPodAutoscalerCondition
MetricStatus type=1:s! resource=4:ResourceMetricStatus containerResource=7:ContainerResourceMetricStatus
ResourceMetricStatus name=1:s! current=2:MetricValueStatus
ContainerResourceMetricStatus name=1:s! current=2:MetricValueStatus container=3:s!
MetricValueStatus value=1:qty averageValue=2:qty averageUtilization=3:i32!
HorizontalPodAutoscalerCondition type=1:s! status=2:s! lastTransitionTime=3:time reason=4:s message=5:s
"""
