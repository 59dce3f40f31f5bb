"""A tenant's claim on another's volume: bob (admin in `default`) creates a PersistentVolumeClaim that names
team-b's bound volume in `spec.volumeName` and says `status.phase: Bound` itself. The kubelet mounts a Bound
claim's volume; before the fix the store kept the body's status, so bob's pod got team-b's directory (or a
hostPath PV's `/`) without the binder ever promising it. Now a claim starts Pending (the claim strategy's
PrepareForCreate), and the kubelet also wants the volume's claimRef to name the claim
(tests/unit/kubelet/test_host_volumes.py)."""
from __future__ import annotations

import pytest

from api.status import StatusError
from runtime.client import Client
from testkit.people import as_person
from testkit.waiting import wait_until
from tests.tenancy import VICTIM_NS, two_tenants


@pytest.fixture
def bob(cluster, procs, settings):
    two_tenants(cluster, procs)
    client = Client(as_person(settings, "bob"), name="test bob")
    wait_until(lambda: client.list("PersistentVolumeClaim", "default").items == [], 10, what="bob to list claims")
    yield client
    client.close()


def _claim(name: str, namespace: str, **spec) -> dict:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": namespace},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}},
                     "storageClassName": "", **spec}}


def _victims_volume(cluster: Client) -> dict:
    data = cluster.create(_claim("data", VICTIM_NS))
    ref = {"kind": "PersistentVolumeClaim", "namespace": VICTIM_NS, "name": "data", "uid": data["metadata"]["uid"]}
    return cluster.create({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "team-b-data"},
                           "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                                    "hostPath": {"path": "/srv/team-b"}, "claimRef": ref,
                                    "storageClassName": ""}})


def test_a_tenants_claim_cannot_declare_itself_bound_to_anothers_volume(bob, cluster):
    volume = _victims_volume(cluster)
    stolen = {**_claim("stolen", "default", volumeName=volume["metadata"]["name"]),
              "status": {"phase": "Bound", "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"]}}
    made = bob.create(stolen)
    assert made["status"] == {"phase": "Pending"}
    assert cluster.get("PersistentVolumeClaim", "stolen", "default")["status"] == {"phase": "Pending"}
    # nor can bob write the claim's status afterwards: that is the binder's (and the node's) subresource
    with pytest.raises(StatusError) as refused:
        bob.request("updateStatus", "PersistentVolumeClaim", namespace="default", name="stolen",
                    obj={**made, "status": {"phase": "Bound"}})
    assert refused.value.reason == "Forbidden"
    # still served: bob's own claims are made, and team-b's claim is as it was
    assert [c["metadata"]["name"] for c in bob.list("PersistentVolumeClaim", "default").items] == ["stolen"]
    assert cluster.get("PersistentVolumeClaim", "data", VICTIM_NS)["metadata"]["uid"] == \
        volume["spec"]["claimRef"]["uid"]
