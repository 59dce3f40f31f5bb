"""A pod that says it has finished: bob (admin in `default`, under a quota of one pod, which `web` uses)
creates a pod bound to node-1 whose body says `status.phase: Failed`. A terminal pod is not charged to a
quota and the scheduler counts none of its requests, but the kubelet runs what is bound to it whatever its
phase: before the fix the store kept the body's status, so bob ran pods past his quota. Now a new pod starts
Pending, as the pod strategy's PrepareForCreate makes it, and is charged."""
from __future__ import annotations

import pytest

from api.status import StatusError
from runtime.client import Client
from testkit.people import as_person
from testkit.waiting import wait_until
from tests.tenancy import pod, two_tenants


def _used(cluster: Client) -> dict | None:
    return (cluster.get("ResourceQuota", "one-pod", "default").get("status") or {}).get("used")


def test_a_pod_created_as_failed_is_still_charged_to_the_quota(cluster, procs, settings):
    two_tenants(cluster, procs)  # bob's pod `web` in default
    procs.start("actors.controllers", "resourcequota", label="quota-controller")
    cluster.create({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "one-pod", "namespace": "default"},
                    "spec": {"hard": {"pods": "1"}}})
    wait_until(lambda: _used(cluster) == {"pods": "1"}, 30, what="web charged")
    bob = Client(as_person(settings, "bob"), name="test bob")
    try:
        finished = {**pod("free", "default", "node-1"), "status": {"phase": "Failed"}}
        with pytest.raises(StatusError) as refused:
            bob.create(finished)
        assert refused.value.reason == "Forbidden"
        assert refused.value.message == ('pods "free" is forbidden: exceeded quota: one-pod, requested: pods=1, '
                                         'used: pods=1, limited: pods=1')
        assert [p["metadata"]["name"] for p in bob.list("Pod", "default").items] == ["web"]
    finally:
        bob.close()
    # a new pod starts Pending whoever makes it, the administrator's too
    made = cluster.create({**pod("another", "team-b"), "status": {"phase": "Succeeded", "podIP": "10.0.0.9"}})
    assert made["status"] == {"phase": "Pending", "qosClass": "BestEffort"}  # the QoS class of its (no) resources
