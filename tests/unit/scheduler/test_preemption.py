"""Victim selection and the choice of node, on the pure logic."""
import random

import numpy as np

from actors.scheduler import preemption
from actors.scheduler.framework import Context
from actors.scheduler.podinfo import pod_info
from actors.scheduler.profiles import build
from config.scheduler import Profile, SchedulerConfiguration
from tests.unit.scheduler.kit import node, pod, table


def _low(name, cpu, priority, start="2026-01-01T00:00:00Z"):
    p = pod(name, cpu=cpu, priority=priority)
    p["status"]["startTime"] = start
    return p


def _setup(*placed):
    t = table(node("n1", cpu="4"), node("n2", cpu="4"), pods=placed)
    fw = build(Profile(), SchedulerConfiguration(), random.Random(1))
    ctx = Context(pod_info(pod("urgent", cpu="3", priority=100)), t)
    decision = fw.schedule(ctx)
    assert decision.node is None
    return fw, ctx, decision


def test_fewest_lowest_priority_victims_win():
    fw, ctx, decision = _setup((_low("a1", "2", 1), "n1"), (_low("a2", "2", 1), "n1"),
                               (_low("b1", "2", 5), "n2"), (_low("b2", "1500m", 1), "n2"))
    best = preemption.find(fw, ctx, decision.diagnosis, 0)
    # both nodes need both their pods gone; n1's most important victim has priority 1, n2's has 5
    assert best.node == "n1" and [v.priority for v in best.victims] == [1, 1]


def test_reprieve_keeps_what_can_stay():
    fw, ctx, decision = _setup((_low("small", "500m", 1), "n1"), (_low("big", "3", 1), "n1"),
                               (_low("x", "4", 200), "n2"))
    best = preemption.find(fw, ctx, decision.diagnosis, 0)
    assert best.node == "n1" and [v.name for v in best.victims] == ["big"]


def test_no_candidates_when_only_higher_priority_pods_block():
    fw, ctx, decision = _setup((_low("boss1", "4", 500), "n1"), (_low("boss2", "4", 500), "n2"))
    assert preemption.find(fw, ctx, decision.diagnosis, 0) is None


def test_preemption_policy_never_and_the_table_is_restored():
    fw, ctx, decision = _setup((_low("a1", "4", 1), "n1"), (_low("b1", "4", 1), "n2"))
    before = ctx.table.req["cpu"][:2].copy()
    preemption.find(fw, ctx, decision.diagnosis, 0)
    assert np.array_equal(ctx.table.req["cpu"][:2], before)
    assert not preemption.eligible(pod_info(pod("p", preemptionPolicy="Never")), ctx.table)
