"""The PV controller with real actors: a claim bound to the smallest volume that fits (claimRef, volumeName,
the bind annotations, both phases Bound), the default StorageClass filled in on create, the pvc-protection
finalizer holding a deleted claim while a pod uses it, the claim's volume Released (Retain) after it."""
from __future__ import annotations

import pytest

from api import storage
from api.status import StatusError
from testkit.waiting import wait_until


pytestmark = pytest.mark.shared_plane  # one control plane for the module, a namespace per test
PLANE_ACTORS = [("actors.controllers", "persistentvolume")]


@pytest.fixture
def binder(cluster):
    """The module's plane with its PV controller. A test names its volumes and classes (cluster-scoped)
    after its namespace: a claim binds only to a volume of its own class, so to none of another test's."""
    return cluster


def ours(client) -> str:
    """The prefix of this test's cluster-scoped names."""
    return f"{client.namespace}-"


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
    here, mine = binder.namespace, ours(binder)
    for name, size in (("big", "10Gi"), ("small", "1Gi"), ("tiny", "100Mi")):
        binder.create(volume(mine + name, size, f"{mine}manual"))
    binder.create(claim("data", "500Mi", f"{mine}manual"), here)
    pvc = phase_of(binder, "PersistentVolumeClaim", "data", "Bound", here)
    assert pvc["spec"]["volumeName"] == f"{mine}small"
    assert pvc["status"]["capacity"] == {"storage": "1Gi"} and pvc["status"]["accessModes"] == ["ReadWriteOnce"]
    notes = pvc["metadata"]["annotations"]
    assert notes[storage.BIND_COMPLETED] == "yes" and notes[storage.BOUND_BY_CONTROLLER] == "yes"
    assert pvc["metadata"]["finalizers"] == [storage.PVC_PROTECTION]
    pv = phase_of(binder, "PersistentVolume", f"{mine}small", "Bound")
    assert pv["spec"]["claimRef"]["uid"] == pvc["metadata"]["uid"]
    assert pv["metadata"]["finalizers"] == [storage.PV_PROTECTION]
    assert storage.phase(binder.get("PersistentVolume", f"{mine}big")) == "Available"

    binder.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "user"},
                   "spec": {"containers": [{"name": "c", "image": "busybox"}],
                            "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}}, here)
    binder.delete("PersistentVolumeClaim", "data", here)
    held = binder.get("PersistentVolumeClaim", "data", here)
    assert held["metadata"].get("deletionTimestamp") and held["metadata"]["finalizers"] == [storage.PVC_PROTECTION]
    binder.delete("Pod", "user", here)
    wait_until(lambda: gone(binder, "PersistentVolumeClaim", "data", here), 30, what="the claim gone")
    released = phase_of(binder, "PersistentVolume", f"{mine}small", "Released")
    assert released["spec"]["claimRef"]["uid"] == pvc["metadata"]["uid"]  # Retain: no rebinding


def test_default_class_and_no_class_claims(binder):
    """The default class is every namespace's while it lives: it is this test's own, deleted at its end."""
    gold = f"{ours(binder)}gold"
    binder.create({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
                   "metadata": {"name": gold, "annotations": {storage.DEFAULT_CLASS: "true"}},
                   "provisioner": "example.com/gold"})
    wait_until(lambda: _defaulted(binder, gold), 30, what="the admission cache to see the class")
    marked = wait_until(lambda: (storage.STORAGE_PROVISIONER in ((c := binder.get(
        "PersistentVolumeClaim", "probe", binder.namespace))["metadata"].get("annotations") or {})) and c, 30,
        what="the claim left to its provisioner")
    assert marked["metadata"]["annotations"][storage.STORAGE_PROVISIONER] == "example.com/gold"
    binder.create(claim("none", "1Gi", cls=""), binder.namespace)
    events = wait_until(lambda: [e for e in binder.list("Event", binder.namespace).items
                                 if e["involvedObject"]["name"] == "none"], 30, what="the claim's event")
    assert (events[0]["reason"], events[0]["message"]) == ("FailedBinding", (
        "no persistent volumes available for this claim and no storage class is set"))
    binder.delete("StorageClass", gold)


def _defaulted(client, gold: str) -> bool:
    here = client.namespace
    try:
        client.delete("PersistentVolumeClaim", "probe", here)
    except StatusError:
        pass
    wait_until(lambda: gone(client, "PersistentVolumeClaim", "probe", here) or None, 10, what="probe gone")
    return client.create(claim("probe", "1Gi", cls=None), here)["spec"].get("storageClassName") == gold


def test_a_node_reads_the_claims_of_its_pods_and_their_volumes_only(binder, node_1):
    here, mine = binder.namespace, ours(binder)
    binder.create(volume(f"{mine}mine", "1Gi", f"{mine}manual"))
    binder.create(volume(f"{mine}other", "1Gi", cls=f"{mine}else"))
    binder.create(claim("data", "1Gi", f"{mine}manual"), here)
    phase_of(binder, "PersistentVolumeClaim", "data", "Bound", here)
    binder.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "user"},
                   "spec": {"nodeName": "node-1", "containers": [{"name": "c", "image": "busybox"}],
                            "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}}, here)
    assert node_1.get("PersistentVolumeClaim", "data", here)["spec"]["volumeName"] == f"{mine}mine"
    assert node_1.get("PersistentVolume", f"{mine}mine")["spec"]["hostPath"] == {"path": f"/tmp/{mine}mine"}
    with pytest.raises(StatusError) as refused:
        node_1.get("PersistentVolume", f"{mine}other")
    assert refused.value.reason == "Forbidden"
    assert "no relationship found between node 'node-1' and this object" in refused.value.message
