"""Sampling, FitError messages, weighted totals and ties."""
import random
from collections import Counter

import numpy as np
import pytest

from actors.scheduler.framework import (SUCCESS, UNRESOLVABLE, UNSCHEDULABLE, Context, Filtered, Framework, Plugin,
                                         num_feasible_to_find)
from actors.scheduler.podinfo import pod_info
from actors.scheduler.profiles import build
from config.scheduler import Profile, SchedulerConfiguration
from tests.unit.scheduler.kit import node, pod, table


@pytest.mark.parametrize("nodes,pct,expected", [
    (10, None, 10), (1000, None, 420), (1000, 40, 400), (6000, None, 300), (10000, None, 500), (5000, None, 500),
])
def test_num_feasible_nodes_to_find(nodes, pct, expected):
    assert num_feasible_to_find(nodes, pct) == expected


def _framework(**profile):
    return build(Profile(**profile), SchedulerConfiguration(), random.Random(7))


def test_fit_error_message_has_kubernetes_shape():
    t = table(node("tainted", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]),
              node("small1", cpu="2"), node("small2", cpu="2"),
              pods=((pod("x1", cpu="1"), "small1"), (pod("x2", cpu="1"), "small2")))
    decision = _framework().schedule(Context(pod_info(pod(cpu="2")), t))
    assert decision.node is None
    assert decision.diagnosis.message() == \
        "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu."
    assert sorted(decision.diagnosis.preemptable()) == [1, 2]


def test_no_nodes():
    decision = _framework().schedule(Context(pod_info(pod()), table()))
    assert decision.diagnosis.message() == "no nodes available to schedule pods"


def test_picks_the_best_node_and_breaks_ties_at_random():
    t = table(node("busy", cpu="4"), node("idle1", cpu="4"), node("idle2", cpu="4"),
              pods=((pod("x", cpu="3"), "busy"),))
    fw = _framework()
    picks = Counter(fw.schedule(Context(pod_info(pod(cpu="1", memory="1Gi")), t)).node for _ in range(200))
    assert set(picks) == {"idle1", "idle2"} and min(picks.values()) > 60


def test_bin_packing_profile_prefers_the_fuller_node():
    t = table(node("busy", cpu="4"), node("idle", cpu="4"), pods=((pod("x", cpu="2"), "busy"),))
    fw = _framework(pluginConfig=[{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "MostAllocated"}}}])
    assert fw.schedule(Context(pod_info(pod(cpu="1", memory="1Gi")), t)).node == "busy"


def test_sampling_rotates_through_the_nodes():
    t = table(*(node(f"n{i}") for i in range(200)))
    fw = _framework(percentageOfNodesToScore=50)
    first, _ = fw.find_feasible(Context(pod_info(pod()), t))
    second, _ = fw.find_feasible(Context(pod_info(pod()), t))
    assert len(first) == len(second) == 100 and set(first).isdisjoint(second)


def test_filtering_stops_once_enough_nodes_are_feasible_and_goes_on_from_there():
    t = table(*(node(f"n{i}", cpu="2" if i < 1500 else "8") for i in range(2000)))
    fw = _framework(percentageOfNodesToScore=10)
    ctx = Context(pod_info(pod(cpu="4")), t)  # fits only n1500 and later; 200 of them are wanted
    feasible, diagnosis = fw.find_feasible(ctx)
    assert list(feasible) == list(range(1500, 1700))
    assert len(diagnosis.failures) == 1500  # every node before them was filtered, none after
    again, diagnosis = fw.find_feasible(ctx)
    assert list(again) == list(range(1700, 1900)) and not diagnosis.failures
    last, _ = fw.find_feasible(ctx)
    assert list(last) == list(range(1900, 2000)) + list(range(1500, 1600))


def test_disabled_plugins_and_recorded_scores():
    t = table(node("a"), node("b", taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]))
    fw = _framework(plugins={"multiPoint": {"disabled": [{"name": "TaintToleration"}]}}, recordDecisions=True)
    decision = fw.schedule(Context(pod_info(pod(cpu="1")), t))
    assert set(decision.scores) == {"a", "b"} and "TaintToleration" not in decision.scores["a"]


class _Rejects(Plugin):
    """Fails the nodes at `bad` with `code`, counting how often its reasons are asked for."""

    filters = True

    def __init__(self, name: str, bad: set[int], code: int):
        self.name, self.bad, self.code, self.asked = name, bad, code, 0

    def filter(self, ctx, idx):
        def reasons(pos):
            self.asked += 1
            return [f"{self.name} said no to n{idx[pos]}"]

        failed = np.isin(idx, list(self.bad))
        return Filtered(np.where(failed, self.code, SUCCESS).astype(np.int8), reasons)


def test_failures_are_worked_out_only_when_read_and_name_the_first_failing_filter():
    t = table(*(node(f"n{i}") for i in range(6)))
    first, second = _Rejects("First", {1, 2}, UNSCHEDULABLE), _Rejects("Second", {2, 3, 4}, UNRESOLVABLE)
    fw = Framework("p", [first, second], [])
    decision = fw.schedule(Context(pod_info(pod()), t))
    assert decision.node == "n0"
    assert decision.diagnosis.preemptable() == [1, 2] and first.asked == second.asked == 0  # codes need no reasons
    assert decision.diagnosis.failures == {1: (UNSCHEDULABLE, ["First said no to n1"], "First"),
                                           2: (UNSCHEDULABLE, ["First said no to n2"], "First"),
                                           3: (UNRESOLVABLE, ["Second said no to n3"], "Second"),
                                           4: (UNRESOLVABLE, ["Second said no to n4"], "Second")}
    decision.diagnosis.message()
    assert (first.asked, second.asked) == (2, 2)  # once each, however often the diagnosis is read
