"""NodeResourcesFit and BalancedAllocation with the scores Kubernetes' own tests expect."""
import numpy as np
import pytest

from actors.scheduler.framework import UNRESOLVABLE, UNSCHEDULABLE
from actors.scheduler.plugins.fit import NodeResourcesBalancedAllocation, NodeResourcesFit
from actors.scheduler.podinfo import pod_info
from api.resources import pod_requests
from tests.unit.scheduler.kit import ctx, node, pod, scores, table

SIZED = (node("n1", cpu="4000m", memory="10000"), node("n2", cpu="6000m", memory="10000"))


@pytest.mark.parametrize("strategy,expected", [
    pytest.param("LeastAllocated", [37, 50], id="least-allocated"),
    pytest.param("MostAllocated", [62, 50], id="most-allocated"),
])
def test_strategies_on_differently_sized_nodes(strategy, expected):
    assert scores(NodeResourcesFit(strategy), table(*SIZED), pod(cpu="3000m", memory="5000")) == expected


def test_requested_to_capacity_ratio_rounds_half_away():
    plugin = NodeResourcesFit("RequestedToCapacityRatio", shape=((0, 0), (100, 10)))
    assert scores(plugin, table(SIZED[0]), pod(cpu="3000m", memory="5000")) == [63]  # (75 + 50) / 2


def test_worked_defaults():
    t = table(node("n", cpu="4", memory="8Gi"))
    assert scores(NodeResourcesFit(), t, pod(cpu="1", memory="2Gi")) == [75]
    assert scores(NodeResourcesBalancedAllocation(), t, pod(cpu="1", memory="2Gi")) == [100]
    assert scores(NodeResourcesFit(), t, pod()) == [97]  # counted as 100m and 200Mi
    c = ctx(t, pod())
    assert not NodeResourcesBalancedAllocation().pre_score(c, np.arange(1))  # best-effort: skipped


def test_balanced_allocation_on_differently_sized_nodes():
    assert scores(NodeResourcesBalancedAllocation(), table(*SIZED), pod(cpu="3000m", memory="5000")) == [87, 100]


def test_existing_pods_count_in_scores():
    t = table(node("n1", cpu="4", memory="8Gi"), node("n2", cpu="4", memory="8Gi"),
              pods=((pod("busy", cpu="2", memory="4Gi"), "n1"),))
    assert scores(NodeResourcesFit(), t, pod(cpu="1", memory="1Gi")) == [31, 81]


@pytest.mark.parametrize("request_,expected,reasons", [
    pytest.param({"cpu": "3"}, UNSCHEDULABLE, ["Insufficient cpu"], id="insufficient-cpu"),
    pytest.param({"cpu": "5"}, UNRESOLVABLE, ["Insufficient cpu"], id="more-than-the-node-has"),
    pytest.param({"cpu": "3", "memory": "7Gi"}, UNSCHEDULABLE, ["Insufficient cpu", "Insufficient memory"],
                 id="all-reasons"),
    pytest.param({"example.com/gpu": "1"}, UNRESOLVABLE, ["Insufficient example.com/gpu"], id="missing-scalar"),
    pytest.param({"cpu": "1"}, 0, [], id="fits"),
])
def test_filter(request_, expected, reasons):
    t = table(node("n", cpu="4", memory="8Gi"), pods=((pod("busy", cpu="2", memory="4Gi"), "n"),))
    p = pod()
    p["spec"]["containers"][0]["resources"] = {"requests": request_}
    c = ctx(t, p)
    verdict = NodeResourcesFit().filter(c, np.arange(1))
    assert int(verdict.codes[0]) == expected
    if expected:
        assert verdict.reasons(0) == reasons


def test_too_many_pods_even_without_requests():
    t = table(node("n", pods="1"), pods=((pod("one"), "n"),))
    c = ctx(t, pod())
    verdict = NodeResourcesFit().filter(c, np.arange(1))
    assert (int(verdict.codes[0]), verdict.reasons(0)) == (UNSCHEDULABLE, ["Too many pods"])


def test_effective_requests_count_init_containers_sidecars_and_overhead():
    spec = {"containers": [{"name": "a", "resources": {"requests": {"cpu": "1"}}},
                           {"name": "b", "resources": {"requests": {"cpu": "1"}}}],
            "initContainers": [{"name": "big", "resources": {"requests": {"cpu": "3"}}},
                               {"name": "side", "restartPolicy": "Always", "resources": {"requests": {"cpu": "500m"}}}],
            "overhead": {"cpu": "100m"}}
    assert pod_requests(spec) == {"cpu": 3100}  # max(2 + 0.5, 3) + 0.1
    spec["initContainers"].reverse()  # the sidecar now runs beside the big init container
    assert pod_requests(spec) == {"cpu": 3600}  # max(2.5, 3.5) + 0.1
    assert pod_info(pod(cpu="0")).nonzero_cpu == 0  # an explicit 0 is not defaulted


# A node without memory (allocatable 0) next to full ones: scoring takes the masked path when it is
# among the nodes scored and a mask-free path when it is not; a node's score may not depend on that.
MIXED = (node("full", cpu="4", memory="8Gi"), node("nomem", cpu="4", memory="0"), node("busy", cpu="8", memory="2Gi"),
         node("over", cpu="1", memory="1Gi"))


@pytest.mark.parametrize("plugin", [
    NodeResourcesFit(), NodeResourcesFit("MostAllocated", resources=(("cpu", 2), ("memory", 3))),
    NodeResourcesFit("RequestedToCapacityRatio", shape=((0, 0), (50, 7), (100, 10))),
    NodeResourcesBalancedAllocation(), NodeResourcesBalancedAllocation((("cpu", 1), ("memory", 1), ("pods", 1))),
], ids=["least", "most-weighted", "ratio", "balanced", "balanced-three"])
def test_a_nodes_score_does_not_depend_on_the_others_scored(plugin):
    t = table(*MIXED, pods=((pod("x", cpu="1", memory="1Gi"), "busy"), (pod("y", cpu="2", memory="2Gi"), "over")))
    p = pod(cpu="500m", memory="512Mi")
    together = [int(s) for s in plugin.score(ctx(t, p), np.arange(len(t)))]
    alone = [int(plugin.score(ctx(t, p), np.array([i]))[0]) for i in range(len(t))]
    assert together == alone


def test_filter_verdicts_do_not_depend_on_the_others_filtered():
    t = table(*MIXED, pods=((pod("x", cpu="1", memory="1Gi"), "busy"), (pod("y", cpu="2", memory="2Gi"), "over")))
    c = ctx(t, pod(cpu="500m", memory="512Mi"))
    together = NodeResourcesFit().filter(c, np.arange(len(t)))
    assert [int(x) for x in together.codes] == [0, UNRESOLVABLE, 0, UNSCHEDULABLE]
    assert together.reasons(1) == ["Insufficient memory"]
    assert together.reasons(3) == ["Insufficient cpu", "Insufficient memory"]
    for i in range(len(t)):
        alone = NodeResourcesFit().filter(c, np.array([i]))
        assert int(alone.codes[0]) == int(together.codes[i])
