"""The disruption controller's arithmetic (k8s-config-workloads.md §9): expected and desired healthy
pods per form of the budget, healthy pods, awaited evictions and their timeout, disruptionsAllowed and
the DisruptionAllowed condition."""
from __future__ import annotations

import pytest

from actors.controllers.disruptionsync import DELETION_TIMEOUT, sync
from api.times import rfc3339

NOW = 1_800_000_000.0
RS = {"kind": "ReplicaSet", "name": "web-1", "uid": "rs-1", "controller": True}


def pod(name: str, ready: bool = True, owner: dict | None = RS, deleting: bool = False) -> dict:
    meta = {"name": name, "namespace": "default", "labels": {"app": "web"},
            **({"ownerReferences": [owner]} if owner else {}),
            **({"deletionTimestamp": rfc3339(NOW)} if deleting else {})}
    return {"metadata": meta, "status": {"conditions": [{"type": "Ready", "status": str(ready)}]}}


def budget(status: dict | None = None, **spec) -> dict:
    return {"metadata": {"name": "web", "namespace": "default", "generation": 2},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, **spec}, "status": status or {}}


def scale_of(replicas: int):
    return lambda ns, ref: (ref["uid"], replicas) if ref["uid"] == "rs-1" else None


THREE = [pod("a"), pod("b"), pod("c")]


@pytest.mark.parametrize("spec, pods, replicas, expected", [
    pytest.param({"minAvailable": 2}, THREE, 3, (3, 2, 3, 1), id="min-int-counts-pods"),
    pytest.param({"minAvailable": 2}, THREE[:2], 5, (2, 2, 2, 0), id="min-int-ignores-scale"),
    pytest.param({"minAvailable": "50%"}, THREE, 4, (4, 2, 3, 1), id="min-percent-of-scale-rounded-up"),
    pytest.param({"maxUnavailable": 1}, THREE, 3, (3, 2, 3, 1), id="max-int"),
    pytest.param({"maxUnavailable": "34%"}, THREE, 3, (3, 1, 3, 2), id="max-percent-rounded-up"),
    pytest.param({"maxUnavailable": 5}, THREE, 3, (3, 0, 3, 3), id="desired-never-negative"),
    pytest.param({"minAvailable": 2}, [pod("a"), pod("b", ready=False), pod("c", deleting=True)], 3, (3, 2, 1, 0),
                 id="unready-and-deleting-are-unhealthy"),
    pytest.param({"minAvailable": 0}, [], 3, (0, 0, 0, 0), id="no-pods-no-disruptions"),
])
def test_counts(spec, pods, replicas, expected):
    status = sync(budget(**spec), pods, scale_of(replicas), NOW).status
    assert (status["expectedPods"], status["desiredHealthy"], status["currentHealthy"],
            status["disruptionsAllowed"]) == expected
    assert status["observedGeneration"] == 2


def test_condition_says_whether_a_disruption_is_allowed():
    allowed = sync(budget(minAvailable=2), THREE, scale_of(3), NOW).status["conditions"]
    assert [(c["type"], c["status"], c["reason"]) for c in allowed] == [("DisruptionAllowed", "True", "SufficientPods")]
    refused = sync(budget(minAvailable=3), THREE, scale_of(3), NOW).status["conditions"]
    assert [(c["status"], c["reason"]) for c in refused] == [("False", "InsufficientPods")]


def test_transition_time_moves_only_with_the_status():
    first = sync(budget(minAvailable=2), THREE, scale_of(3), NOW).status
    again = sync(budget(first, minAvailable=2), THREE, scale_of(3), NOW + 60).status
    assert again["conditions"][0]["lastTransitionTime"] == rfc3339(NOW)
    flipped = sync(budget(first, minAvailable=3), THREE, scale_of(3), NOW + 60).status
    assert flipped["conditions"][0]["lastTransitionTime"] == rfc3339(NOW + 60)


def test_an_awaited_eviction_is_not_healthy_until_it_times_out():
    status = {"disruptedPods": {"a": rfc3339(NOW - 10)}}
    outcome = sync(budget(status, minAvailable=2), THREE, scale_of(3), NOW)
    assert outcome.status["currentHealthy"] == 2 and outcome.status["disruptionsAllowed"] == 0
    assert outcome.status["disruptedPods"] == {"a": rfc3339(NOW - 10)}
    assert outcome.recheck_at == NOW - 10 + DELETION_TIMEOUT
    late = sync(budget(status, minAvailable=2), THREE, scale_of(3), NOW + DELETION_TIMEOUT)
    assert late.not_deleted == ["a"] and "disruptedPods" not in late.status
    assert late.status["currentHealthy"] == 3


def test_a_deleting_pod_leaves_the_awaited_map():
    status = {"disruptedPods": {"a": rfc3339(NOW - 10)}}
    outcome = sync(budget(status, minAvailable=1), [pod("a", deleting=True), pod("b")], scale_of(3), NOW)
    assert "disruptedPods" not in outcome.status and outcome.recheck_at is None


def test_a_controller_not_found_fails_the_sync():
    stray = pod("x", owner={**RS, "uid": "gone"})
    status = sync(budget(maxUnavailable=1), [*THREE, stray], scale_of(3), NOW).status
    assert status["disruptionsAllowed"] == 0
    assert [(c["reason"], c["message"]) for c in status["conditions"]] == \
        [("SyncFailed", 'found no controllers for pod "x"')]


def test_pods_without_a_controller_are_reported_for_scale_forms():
    outcome = sync(budget(maxUnavailable=1), [*THREE, pod("bare", owner=None)], scale_of(3), NOW)
    assert outcome.unmanaged == ["bare"] and outcome.status["expectedPods"] == 3
