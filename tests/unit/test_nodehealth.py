import pytest

from actors.controllers.nodehealth import Rates, eviction_delay, wanted_noschedule, zone_state

UNREACHABLE = {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}


@pytest.mark.parametrize("readiness,state", [
    (["True", "True"], "Normal"), (["Unknown", "False"], "FullDisruption"),
    (["True", "False", "False", "False"], "PartialDisruption"), (["True", "True", "False", "False"], "Normal"),
])
def test_zone_state(readiness, state):
    assert zone_state(readiness) == state


def test_rates():
    rates = Rates()
    assert rates.qps("Normal", 10) == 0.1
    assert rates.qps("PartialDisruption", 51) == 0.01 and rates.qps("PartialDisruption", 50) == 0.0


@pytest.mark.parametrize("tolerations,delay", [
    ([], 0.0),
    ([{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"}], None),
    ([{"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute",
       "tolerationSeconds": 300}], 300.0),
    ([{"operator": "Exists", "tolerationSeconds": 30},
      {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 10}], 10.0),
])
def test_eviction_delay(tolerations, delay):
    assert eviction_delay({"spec": {"tolerations": tolerations}}, [UNREACHABLE]) == delay


def test_noschedule_taints_follow_conditions():
    node = {"status": {"conditions": [{"type": "Ready", "status": "Unknown"},
                                      {"type": "MemoryPressure", "status": "True"}]}}
    assert wanted_noschedule(node) == {"node.kubernetes.io/unreachable", "node.kubernetes.io/memory-pressure"}
