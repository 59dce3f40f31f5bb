"""PodDisruptionBudgets on hollow nodes: the disruption controller's status, evictions charged against
it (one passes, the next is 429 until the replacement is Ready; concurrent evictions never exceed the
budget), and DELETE of a collection on the bus."""
from __future__ import annotations

from concurrent.futures import wait

import pytest

from api.status import StatusError
from bus.rpc import unwrap
from testkit.waiting import wait_until

STARTUP = "kubus.io/simulated-startup-seconds"


pytestmark = pytest.mark.shared_plane  # one plane for the module (hollow nodes, controllers), a namespace per test
PLANE_ACTORS = [("actors.controllers", "disruption")]


@pytest.fixture
def budgets(apps):
    """`apps` on the module's plane, with the disruption controller (PLANE_ACTORS)."""
    return apps


def deployment(name: str, replicas: int, startup: float) -> dict:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels, "annotations": {STARTUP: str(startup)}},
                                  "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}


def pdb(name: str, **spec) -> dict:
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name},
            "spec": {"selector": {"matchLabels": {"app": name}}, **spec}}


def allowed(client, name: str, count: int, timeout: float = 60) -> dict:
    def settled():
        status = client.get("PodDisruptionBudget", name).get("status") or {}
        return status if status.get("disruptionsAllowed") == count and status.get("observedGeneration") else None
    return wait_until(settled, timeout, what=f"pdb {name} allowing {count}")


def running(client, app: str) -> list[str]:
    return sorted(p["metadata"]["name"] for p in client.list("Pod", client.namespace, label_selector=f"app={app}").items
                  if not p["metadata"].get("deletionTimestamp"))


def evict(client, pod: str):
    return client.request_async("evict", "Pod", namespace=client.namespace, name=pod, obj={"metadata": {"name": pod}})


def test_one_eviction_passes_the_next_waits_for_the_replacement(budgets):
    budgets.create(deployment("web", 3, 5))
    budgets.create(pdb("web", minAvailable=2))
    status = allowed(budgets, "web", 1)
    assert (status["expectedPods"], status["desiredHealthy"], status["currentHealthy"]) == (3, 2, 3)
    first, second = running(budgets, "web")[:2]
    assert unwrap(evict(budgets, first).result(30))["object"]["status"] == "Success"
    with pytest.raises(StatusError) as refused:
        unwrap(evict(budgets, second).result(30))
    assert refused.value.code == 429
    assert refused.value.message == "Cannot evict pod as it would violate the pod's disruption budget."
    assert refused.value.causes[0].reason == "DisruptionBudget"
    assert "needs 2 healthy pods" in refused.value.causes[0].message
    allowed(budgets, "web", 1)  # the replacement is Ready
    assert unwrap(evict(budgets, second).result(30))["object"]["status"] == "Success"


def test_concurrent_evictions_never_exceed_the_budget(budgets):
    budgets.create(deployment("api", 4, 3))  # a replacement is not Ready while the four evictions race
    budgets.create(pdb("api", maxUnavailable=1))
    allowed(budgets, "api", 1)
    futures = [evict(budgets, pod) for pod in running(budgets, "api")]
    wait(futures, 30)
    codes = []
    for fut in futures:
        try:
            unwrap(fut.result())
            codes.append(201)
        except StatusError as exc:
            codes.append(exc.code)
    assert sorted(codes) == [201, 429, 429, 429]


def test_two_budgets_are_refused_and_a_bare_delete_ignores_budgets(budgets):
    budgets.create(deployment("db", 2, 0.1))
    budgets.create(pdb("db", minAvailable=2))
    budgets.create({**pdb("db-too", minAvailable=1), "spec": {"selector": {"matchLabels": {"app": "db"}},
                                                              "minAvailable": 1}})
    wait_until(lambda: (budgets.get("PodDisruptionBudget", "db").get("status") or {})
               .get("currentHealthy") == 2, 60, what="two healthy db pods")  # a Pending pod skips budgets
    pod = running(budgets, "db")[0]
    with pytest.raises(StatusError) as refused:
        unwrap(evict(budgets, pod).result(30))
    assert (refused.value.code, refused.value.message) == (500, "This pod has more than one PodDisruptionBudget, "
                                                                "which the eviction subresource does not support.")
    budgets.delete("Pod", pod)


def test_delete_collection_by_label(budgets):
    for name, tier in (("a", "x"), ("b", "x"), ("c", "y")):
        budgets.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"tier": tier}},
                        "spec": {"containers": [{"name": "c", "image": "busybox"}]}})
    reply = budgets.request("deletecollection", "Pod", namespace=budgets.namespace,
                            options={"labelSelector": "tier=x", "gracePeriodSeconds": 0})
    assert sorted(p["metadata"]["name"] for p in reply["items"]) == ["a", "b"]
    wait_until(lambda: sorted(p["metadata"]["name"] for p in budgets.list("Pod", budgets.namespace).items) == ["c"], 30,
               what="only pod c left")
