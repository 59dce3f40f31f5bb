"""The HPA's decisions, pure (k8s-config-workloads.md §10): the replica math with tolerance, missing and
unready pods, the default down window and the behavior's windows and policies, the bounds, the conditions
with Kubernetes' reasons and the events."""
from __future__ import annotations

import pytest

from actors.controllers import hpareplicas, hpasync
from actors.controllers.hpareplicas import MetricError, Sample
from actors.controllers.hpasync import Memory, decide
from api.autoscaling import defaults
from api.times import rfc3339

T0 = 1_000_000.0


def pod(name: str, cpu: str = "100m", phase: str = "Running", ready: bool = True, started: float = T0 - 3600) -> dict:
    return {"metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]},
            "status": {"phase": phase, "startTime": rfc3339(started), "conditions": [
                {"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": rfc3339(started)}]}}


def samples(**used: int) -> dict[str, Sample]:
    return {name: Sample(value, T0 - 5, 15.0) for name, value in used.items()}


def usage(**used: int) -> dict[str, dict[str, Sample]]:
    """PodMetrics as the controller reads them: by pod, by resource."""
    return {name: {"cpu": sample} for name, sample in samples(**used).items()}


def hpa(low=1, high=10, target=50, behavior=None) -> dict:
    obj = {"metadata": {"name": "web", "generation": 1},
           "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "minReplicas": low, "maxReplicas": high,
                    "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": {
                        "type": "Utilization", "averageUtilization": target}}}]}}
    if behavior is not None:
        obj["spec"]["behavior"] = behavior
    defaults(obj)
    return obj


def scale(n: int) -> dict:
    return {"spec": {"replicas": n}, "status": {"replicas": n}}


def reason(decision, type_: str) -> str:
    return next(c["reason"] for c in decision.status["conditions"] if c["type"] == type_)


@pytest.mark.parametrize("used, expected", [
    pytest.param({"a": 100, "b": 100}, 4, id="200%-of-50%-doubles-twice"),
    pytest.param({"a": 52, "b": 54}, 2, id="within-tolerance"),
    pytest.param({"a": 10, "b": 10}, 1, id="down"),
])
def test_utilization_ratio_and_tolerance(used, expected):
    pods = [pod("a"), pod("b")]
    assert hpareplicas.replicas(2, pods, samples(**used), "cpu", T0, utilization=50).replicas == expected


def test_a_behavior_tolerance_per_direction():
    pods = [pod("a"), pod("b")]
    loose = hpa(behavior={"scaleUp": {"tolerance": "0.5"}})
    assert decide(loose, scale(2), pods, usage(a=70, b=70), T0, Memory()).desired == 2  # 140% is within +50%
    assert decide(hpa(), scale(2), pods, usage(a=70, b=70), T0, Memory()).desired == 3


def test_a_container_resource_metric_reads_that_container_alone():
    obj = hpa()
    obj["spec"]["metrics"] = [{"type": "ContainerResource", "containerResource": {
        "name": "cpu", "container": "c", "target": {"type": "Utilization", "averageUtilization": 50}}}]
    pods = [{**pod("a"), "spec": {"containers": [
        {"name": "c", "resources": {"requests": {"cpu": "100m"}}},
        {"name": "side", "resources": {"requests": {"cpu": "900m"}}}]}}]
    samples_ = {"a": {"cpu": Sample(1000, T0 - 5, 15.0), "c/cpu": Sample(100, T0 - 5, 15.0),
                      "side/cpu": Sample(900, T0 - 5, 15.0)}}
    decision = decide(obj, scale(1), pods, samples_, T0, Memory())
    assert decision.desired == 2  # c at 100% of its 100m against 50%; the sidecar's 900m not counted
    assert decision.status["currentMetrics"][0]["containerResource"]["current"]["averageUtilization"] == 100


def test_average_value_target():
    result = hpareplicas.replicas(2, [pod("a"), pod("b")], samples(a=300, b=300), "cpu", T0, average_value=100)
    assert (result.replicas, result.average) == (6, 300)


def test_missing_pods_count_at_the_target_on_the_way_down_and_at_zero_on_the_way_up():
    pods = [pod("a"), pod("b"), pod("c")]
    assert hpareplicas.replicas(3, pods, samples(a=10, b=10), "cpu", T0, utilization=50).replicas == 3
    assert hpareplicas.replicas(3, pods, samples(a=200, b=200), "cpu", T0, utilization=50).replicas == 8


def test_unready_and_pending_pods_count_zero_only_when_scaling_up():
    pods = [pod("a"), pod("b"), pod("c", phase="Pending")]
    assert hpareplicas.replicas(3, pods, samples(a=100, b=100), "cpu", T0, utilization=50).replicas == 4
    pods = [pod("a"), pod("b"), pod("c", ready=False, started=T0 - 10)]
    assert hpareplicas.replicas(3, pods, samples(a=100, b=100, c=100), "cpu", T0, utilization=50).replicas == 4


@pytest.mark.parametrize("pods, used, message", [
    pytest.param([], {}, "no pods returned by selector while calculating replica count", id="no-pods"),
    pytest.param([pod("a", phase="Pending")], {}, "did not receive metrics for targeted pods (pods might be unready)",
                 id="no-metrics"),
    pytest.param([{**pod("a"), "spec": {"containers": [{"name": "c"}]}}], {"a": 5},
                 "missing request for cpu in container c of Pod a", id="no-request"),
])
def test_errors_with_kubernetes_messages(pods, used, message):
    with pytest.raises(MetricError, match=message.replace("(", r"\(").replace(")", r"\)")):
        hpareplicas.replicas(1, pods, samples(**used), "cpu", T0, utilization=50)


def test_scale_up_event_conditions_and_status():
    decision = decide(hpa(), scale(2), [pod("a"), pod("b")], usage(a=100, b=100), T0, Memory())
    assert (decision.desired, decision.rescale) == (4, True)
    assert decision.events == [("Normal", "SuccessfulRescale", "New size: 4; reason: cpu resource utilization "
                                                                "(percentage of request) above target")]
    assert [reason(decision, t) for t in ("AbleToScale", "ScalingActive", "ScalingLimited")] == [
        "SucceededRescale", "ValidMetricFound", "DesiredWithinRange"]
    assert decision.status["currentMetrics"] == [{"type": "Resource", "resource": {
        "name": "cpu", "current": {"averageValue": "100m", "averageUtilization": 100}}}]
    assert decision.status["currentReplicas"] == 2 and decision.status["desiredReplicas"] == 4


def test_without_behavior_the_rate_is_twice_or_four_and_max_bounds():
    pods = [pod("a")]
    decision = decide(hpa(high=10), scale(1), pods, usage(a=1000), T0, Memory())
    assert decision.desired == 4 and reason(decision, "ScalingLimited") == "ScaleUpLimit"
    decision = decide(hpa(high=3), scale(1), pods, usage(a=1000), T0, Memory())
    assert decision.desired == 3 and reason(decision, "ScalingLimited") == "TooManyReplicas"


def test_scale_down_waits_for_the_window():
    memory, pods = Memory(), [pod("a"), pod("b"), pod("c"), pod("d")]
    assert decide(hpa(), scale(4), pods, usage(a=50, b=50, c=50, d=50), T0, memory).desired == 4
    low = usage(a=5, b=5, c=5, d=5)
    held = decide(hpa(), scale(4), pods, low, T0 + 60, memory, down_window=120)
    assert (held.desired, reason(held, "AbleToScale")) == (4, "ScaleDownStabilized")
    later = decide(hpa(), scale(4), pods, low, T0 + 200, memory, down_window=120)
    assert later.desired == 1 and later.events[-1][2] == "New size: 1; reason: All metrics below target"


def test_behavior_policies_and_select_policy():
    behavior = {"scaleUp": {"policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}]},
                "scaleDown": {"stabilizationWindowSeconds": 0, "selectPolicy": "Min", "policies": [
                    {"type": "Percent", "value": 50, "periodSeconds": 60}, {"type": "Pods", "value": 1,
                                                                            "periodSeconds": 60}]}}
    memory, pods = Memory(), [pod(n) for n in "abcd"]
    up = decide(hpa(behavior=behavior), scale(4), pods, usage(a=500, b=500, c=500, d=500), T0, memory)
    assert (up.desired, reason(up, "ScalingLimited")) == (5, "ScaleUpLimit")
    again = decide(hpa(behavior=behavior), scale(5), pods + [pod("e")], usage(a=500, b=500, c=500, d=500, e=500),
                   T0 + 10, memory)
    assert again.desired == 5  # one pod a minute, already spent
    down = decide(hpa(behavior=behavior), scale(8), [pod(n) for n in "abcdefgh"],
                  usage(**{n: 1 for n in "abcdefgh"}), T0 + 100, Memory())
    assert (down.desired, reason(down, "ScalingLimited")) == (7, "ScaleDownLimit")  # Min: the smaller change


def test_disabled_select_policy_and_zero_replicas():
    behavior = {"scaleUp": {"selectPolicy": "Disabled", "policies": [{"type": "Pods", "value": 4,
                                                                      "periodSeconds": 15}]}}
    held = decide(hpa(behavior=behavior), scale(2), [pod("a"), pod("b")], usage(a=100, b=100), T0, Memory())
    assert held.desired == 2 and not held.rescale
    off = decide(hpa(), scale(0), [], {}, T0, Memory())
    assert reason(off, "ScalingActive") == "ScalingDisabled" and not off.rescale


def test_replicas_outside_the_bounds_are_clamped():
    decision = decide(hpa(low=2, high=3), scale(5), [], {}, T0, Memory())
    assert decision.desired == 3
    assert decision.events[0][2] == "New size: 3; reason: Current number of replicas above Spec.MaxReplicas"


def test_a_failed_metric_sets_scaling_active_false():
    decision = decide(hpa(), scale(1), [], {}, T0, Memory())
    assert not decision.rescale and reason(decision, "ScalingActive") == "FailedGetResourceMetric"
    assert decision.events[0] == ("Warning", "FailedGetResourceMetric", "the HPA was unable to compute the replica "
                                  "count: no pods returned by selector while calculating replica count")


def test_condition_transition_time_moves_only_with_the_status():
    status = {}
    hpasync.condition(status, "AbleToScale", "True", "A", "a", T0)
    hpasync.condition(status, "AbleToScale", "True", "B", "b", T0 + 5)
    assert status["conditions"][0]["lastTransitionTime"] == rfc3339(T0)
