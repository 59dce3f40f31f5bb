"""The PV controller with real actors: a claim bound to the smallest volume that fits (claimRef, volumeName,
the bind annotations, both phases Bound), the default StorageClass filled in on create, the pvc-protection
finalizer holding a deleted claim while a pod uses it, the claim's volume Released (Retain) after it."""
from __future__ import annotations

import pytest

from api import storage
from api.status import StatusError
from testkit.waiting import wait_until


@pytest.fixture
def binder(cluster, procs):
    procs.start("actors.controllers", "persistentvolume", label="pv-controller")
    return cluster


def volume(name: str, size: str, cls: str = "manual") -> dict:
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": {"capacity": {"storage": size}, "accessModes": ["ReadWriteOnce"], "storageClassName": cls,
                     "hostPath": {"path": f"/tmp/{name}"}}}


def claim(name: str, size: str, cls: str | None = "manual") -> dict:
    spec = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}}
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name},
            "spec": {**spec, **({"storageClassName": cls} if cls is not None else {})}}


def phase_of(client, kind: str, name: str, phase: str, namespace: str | None = None) -> dict:
    return wait_until(lambda: (o := client.get(kind, name, namespace)) and storage.phase(o) == phase and o, 30,
                      what=f"{kind} {name} {phase}")


def gone(client, kind: str, name: str, namespace: str | None = None) -> bool:
    try:
        client.get(kind, name, namespace)
    except StatusError as exc:
        return exc.reason == "NotFound"
    return False


def test_claim_binds_smallest_fit_and_protection_holds_it_while_a_pod_uses_it(binder):
    for name, size in (("big", "10Gi"), ("small", "1Gi"), ("tiny", "100Mi")):
        binder.create(volume(name, size))
    binder.create(claim("data", "500Mi"), "default")
    pvc = phase_of(binder, "PersistentVolumeClaim", "data", "Bound", "default")
    assert pvc["spec"]["volumeName"] == "small"
    assert pvc["status"]["capacity"] == {"storage": "1Gi"} and pvc["status"]["accessModes"] == ["ReadWriteOnce"]
    notes = pvc["metadata"]["annotations"]
    assert notes[storage.BIND_COMPLETED] == "yes" and notes[storage.BOUND_BY_CONTROLLER] == "yes"
    assert pvc["metadata"]["finalizers"] == [storage.PVC_PROTECTION]
    pv = phase_of(binder, "PersistentVolume", "small", "Bound")
    assert pv["spec"]["claimRef"]["uid"] == pvc["metadata"]["uid"]
    assert pv["metadata"]["finalizers"] == [storage.PV_PROTECTION]
    assert storage.phase(binder.get("PersistentVolume", "big")) == "Available"

    binder.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "user"},
                   "spec": {"containers": [{"name": "c", "image": "busybox"}],
                            "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}}, "default")
    binder.delete("PersistentVolumeClaim", "data", "default")
    held = binder.get("PersistentVolumeClaim", "data", "default")
    assert held["metadata"].get("deletionTimestamp") and held["metadata"]["finalizers"] == [storage.PVC_PROTECTION]
    binder.delete("Pod", "user", "default")
    wait_until(lambda: gone(binder, "PersistentVolumeClaim", "data", "default"), 30, what="the claim gone")
    released = phase_of(binder, "PersistentVolume", "small", "Released")
    assert released["spec"]["claimRef"]["uid"] == pvc["metadata"]["uid"]  # Retain: no rebinding


def test_default_class_and_no_class_claims(binder):
    binder.create({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                   "metadata": {"name": "gold", "annotations": {storage.DEFAULT_CLASS: "true"}},
                   "provisioner": "example.com/gold"})
    wait_until(lambda: _defaulted(binder), 30, what="the admission cache to see the class")
    marked = wait_until(lambda: (storage.STORAGE_PROVISIONER in ((c := binder.get(
        "PersistentVolumeClaim", "probe", "default"))["metadata"].get("annotations") or {})) and c, 30,
        what="the claim left to its provisioner")
    assert marked["metadata"]["annotations"][storage.STORAGE_PROVISIONER] == "example.com/gold"
    binder.create(claim("none", "1Gi", cls=""), "default")
    events = wait_until(lambda: [e for e in binder.list("Event", "default").items
                                 if e["involvedObject"]["name"] == "none"], 30, what="the claim's event")
    assert (events[0]["reason"], events[0]["message"]) == ("FailedBinding", (
        "no persistent volumes available for this claim and no storage class is set"))


def _defaulted(client) -> bool:
    try:
        client.delete("PersistentVolumeClaim", "probe", "default")
    except StatusError:
        pass
    wait_until(lambda: gone(client, "PersistentVolumeClaim", "probe", "default") or None, 10, what="probe gone")
    return client.create(claim("probe", "1Gi", cls=None), "default")["spec"].get("storageClassName") == "gold"


def test_a_node_reads_the_claims_of_its_pods_and_their_volumes_only(binder, node_1):
    binder.create(volume("mine", "1Gi"))
    binder.create(volume("other", "1Gi", cls="else"))
    binder.create(claim("data", "1Gi"), "default")
    phase_of(binder, "PersistentVolumeClaim", "data", "Bound", "default")
    binder.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "user"},
                   "spec": {"nodeName": "node-1", "containers": [{"name": "c", "image": "busybox"}],
                            "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}}, "default")
    assert node_1.get("PersistentVolumeClaim", "data", "default")["spec"]["volumeName"] == "mine"
    assert node_1.get("PersistentVolume", "mine")["spec"]["hostPath"] == {"path": "/tmp/mine"}
    with pytest.raises(StatusError) as refused:
        node_1.get("PersistentVolume", "other")
    assert refused.value.reason == "Forbidden"
    assert "no relationship found between node 'node-1' and this object" in refused.value.message
