"""PodDisruptionBudget admission (policy/v1): Kubernetes' validation messages (k8s-config-workloads.md
§9), the status counts' check, kubectl's columns and the protobuf table."""
from __future__ import annotations

import pytest

from api.admission import admit
from api.pdb import is_healthy, scaled, selects
from api.printers.columns import header, row
from api.protobuf.schema import kind_message
from api.status import StatusError
from api.updates import status_update_causes


def pdb(**spec) -> dict:
    return {"metadata": {"name": "web"}, "spec": {"selector": {"matchLabels": {"app": "web"}}, **spec}}


def refusal(body: dict) -> str:
    with pytest.raises(StatusError) as caught:
        admit("PodDisruptionBudget", body, "default")
    assert caught.value.reason == "Invalid"
    return caught.value.message


@pytest.mark.parametrize("spec", [
    pytest.param({"minAvailable": 2}, id="min-int"), pytest.param({"minAvailable": "50%"}, id="min-percent"),
    pytest.param({"maxUnavailable": 0}, id="max-zero"), pytest.param({"maxUnavailable": "100%"}, id="max-100"),
    pytest.param({"unhealthyPodEvictionPolicy": "AlwaysAllow"}, id="policy"),
])
def test_admits_a_budget_and_zeroes_its_counts(spec):
    admitted = admit("PodDisruptionBudget", pdb(**spec), "default")
    assert admitted["apiVersion"] == "policy/v1"
    assert admitted["status"] == {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0,
                                  "expectedPods": 0}


@pytest.mark.parametrize("spec, message", [
    pytest.param({"minAvailable": 1, "maxUnavailable": 1}, "minAvailable and maxUnavailable cannot be both set",
                 id="both"),
    pytest.param({"minAvailable": -1}, 'spec.minAvailable: Invalid value: -1: must be greater than or equal to 0',
                 id="negative"),
    pytest.param({"maxUnavailable": "150%"}, 'spec.maxUnavailable: Invalid value: "150%": must not be greater '
                 'than 100%', id="over-100"),
    pytest.param({"minAvailable": "half"}, "a valid percent string must be a numeric string followed by an ending "
                 "'%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')", id="not-percent"),
    pytest.param({"unhealthyPodEvictionPolicy": "Sometimes"}, 'spec.unhealthyPodEvictionPolicy: Unsupported value: '
                 '"Sometimes": supported values: "AlwaysAllow", "IfHealthyBudget"', id="policy"),
])
def test_refuses_with_kubernetes_messages(spec, message):
    assert message in refusal(pdb(**spec))


def test_status_counts_are_never_negative():
    causes = status_update_causes("PodDisruptionBudget", pdb(), {**pdb(), "status": {"disruptionsAllowed": -1}})
    assert [c.message for c in causes] == ["Invalid value: -1: must be greater than or equal to 0"]


def test_kubectl_columns():
    obj = {**pdb(minAvailable="50%"), "status": {"disruptionsAllowed": 1}}
    assert header("PodDisruptionBudget", False, False) == ["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE",
                                                           "ALLOWED DISRUPTIONS", "AGE"]
    assert row("PodDisruptionBudget", obj, False, False)[:4] == ["web", "50%", "N/A", "1"]


def test_selection_and_health():
    budget = {**pdb(), "metadata": {"name": "web", "namespace": "a"}}
    pod = {"metadata": {"namespace": "a", "labels": {"app": "web"}},
           "status": {"conditions": [{"type": "Ready", "status": "True"}]}}
    assert selects(budget, pod) and is_healthy(pod)
    assert not selects({**budget, "spec": {}}, pod)  # a nil selector selects nothing (policy/v1)
    assert selects({**budget, "spec": {"selector": {}}}, pod)  # {} selects the namespace
    assert not selects(budget, {**pod, "metadata": {**pod["metadata"], "namespace": "b"}})
    assert not is_healthy({**pod, "metadata": {"deletionTimestamp": "2026-01-01T00:00:00Z"}})
    assert (scaled("50%", 3), scaled("50%", 3, round_up=False), scaled(2, 10)) == (2, 1, 2)


def test_protobuf_table_knows_the_kind():
    assert kind_message("policy/v1", "PodDisruptionBudget") is not None
