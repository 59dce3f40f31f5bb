"""PersistentVolume, PersistentVolumeClaim and StorageClass admission: defaults, Kubernetes' validation
messages, what an update may change, and kubectl's columns (k8s-config-workloads.md §3)."""
from __future__ import annotations

import copy

import pytest

from api.admission import admit
from api.printers.columns import header, row
from api.status import StatusError
from api.updates import update_causes


def pv(**spec) -> dict:
    base = {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"], "hostPath": {"path": "/data"}}
    return {"metadata": {"name": "pv1"}, "spec": {**base, **spec}}


def pvc(**spec) -> dict:
    base = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}
    return {"metadata": {"name": "c1"}, "spec": {**base, **spec}}


def sc(**fields) -> dict:
    return {"metadata": {"name": "fast"}, "provisioner": "kubus.io/local-path", **fields}


def refusal(kind: str, body: dict) -> str:
    with pytest.raises(StatusError) as caught:
        admit(kind, body, "default" if kind in ("PersistentVolumeClaim", "Pod") else None)
    assert caught.value.reason == "Invalid"
    return caught.value.message


def test_defaults():
    volume = admit("PersistentVolume", pv(), None)
    assert volume["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    assert volume["spec"]["volumeMode"] == "Filesystem" and volume["status"] == {"phase": "Pending"}
    claim = admit("PersistentVolumeClaim", pvc(), "default")
    assert claim["spec"]["volumeMode"] == "Filesystem" and claim["status"] == {"phase": "Pending"}
    cls = admit("StorageClass", sc(), None)
    assert (cls["reclaimPolicy"], cls["volumeBindingMode"]) == ("Delete", "Immediate")


@pytest.mark.parametrize("kind, body, message", [
    pytest.param("PersistentVolume", pv(accessModes=[]), "spec.accessModes: Required value", id="pv-modes"),
    pytest.param("PersistentVolume", pv(capacity=None), "spec.capacity: Required value", id="pv-capacity"),
    pytest.param("PersistentVolume", pv(accessModes=["ReadWriteOncePod", "ReadOnlyMany"]),
                 "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes", id="pv-rwop"),
    pytest.param("PersistentVolume", pv(accessModes=["Sometimes"]),
                 'spec.accessModes: Unsupported value: "Sometimes": supported values: "ReadOnlyMany", '
                 '"ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"', id="pv-bad-mode"),
    pytest.param("PersistentVolume", pv(hostPath=None), "spec: Required value: must specify a volume type",
                 id="pv-no-source"),
    pytest.param("PersistentVolume", pv(nfs={"server": "s", "path": "/"}),
                 "spec.nfs: Forbidden: may not specify more than 1 volume type", id="pv-two-sources"),
    pytest.param("PersistentVolume", pv(hostPath=None, local={"path": "/x"}),
                 "spec.nodeAffinity: Required value: Local volume requires node affinity", id="pv-local-affinity"),
    pytest.param("PersistentVolumeClaim", pvc(accessModes=None),
                 "spec.accessModes: Required value: at least 1 access mode is required", id="pvc-modes"),
    pytest.param("PersistentVolumeClaim", pvc(resources={}), "spec.resources[storage]: Required value",
                 id="pvc-size"),
    pytest.param("PersistentVolumeClaim", pvc(resources={"requests": {"storage": "0"}}),
                 'spec.resources[storage]: Invalid value: "0": must be greater than zero', id="pvc-zero"),
    pytest.param("StorageClass", sc(provisioner=None), "provisioner: Required value", id="sc-provisioner"),
    pytest.param("StorageClass", sc(volumeBindingMode="Later"),
                 'volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", '
                 '"WaitForFirstConsumer"', id="sc-mode"),
])
def test_validation_messages(kind, body, message):
    assert message in refusal(kind, body)


def bound(claim: dict) -> dict:
    claim = copy.deepcopy(claim)
    claim["spec"]["volumeName"] = "pv1"
    claim["status"] = {"phase": "Bound", "capacity": {"storage": "2Gi"}}
    return claim


def test_claim_spec_is_immutable_but_bound_requests_grow():
    old = admit("PersistentVolumeClaim", pvc(), "default")
    named = copy.deepcopy(old)
    named["spec"]["volumeName"] = "pv1"
    assert update_causes("PersistentVolumeClaim", old, named) == []  # the binder sets volumeName once
    grown = copy.deepcopy(old)
    grown["spec"]["resources"]["requests"]["storage"] = "5Gi"
    [cause] = update_causes("PersistentVolumeClaim", old, grown)
    assert cause.message == ("Forbidden: spec is immutable after creation except resources.requests and "
                             "volumeAttributesClassName for bound claims")
    assert update_causes("PersistentVolumeClaim", bound(old), bound(grown)) == []
    shrunk = bound(old)
    shrunk["spec"]["resources"]["requests"]["storage"] = "1Gi"
    assert update_causes("PersistentVolumeClaim", bound(old), bound(old)) == []  # unchanged, under capacity
    [cause] = update_causes("PersistentVolumeClaim", bound(grown), shrunk)
    assert cause.field == "spec.resources.requests.storage"
    assert cause.message == "Forbidden: field can not be less than status.capacity"


def test_volume_source_and_class_fields_are_immutable():
    old = admit("PersistentVolume", pv(), None)
    moved = copy.deepcopy(old)
    moved["spec"]["hostPath"]["path"] = "/else"
    [cause] = update_causes("PersistentVolume", old, moved)
    assert cause.message == "Forbidden: spec.persistentvolumesource is immutable after creation"
    cls = admit("StorageClass", sc(), None)
    changed = {**cls, "provisioner": "other.io/x", "reclaimPolicy": "Retain"}
    assert [c.message for c in update_causes("StorageClass", cls, changed)] == [
        "Forbidden: updates to provisioner are forbidden.", "Forbidden: updates to reclaimPolicy are forbidden."]


def test_columns():
    volume = admit("PersistentVolume", pv(accessModes=["ReadWriteMany", "ReadWriteOnce"],
                                          claimRef={"namespace": "default", "name": "c1"},
                                          capacity={"storage": "1024Mi"}), None)
    volume["status"]["phase"] = "Bound"
    assert header("PersistentVolume", False, False) == [
        "NAME", "CAPACITY", "ACCESS MODES", "RECLAIM POLICY", "STATUS", "CLAIM", "STORAGECLASS",
        "VOLUMEATTRIBUTESCLASS", "REASON", "AGE"]
    assert row("PersistentVolume", volume, False, False)[:9] == [
        "pv1", "1Gi", "RWO,RWX", "Retain", "Bound", "default/c1", "", "<unset>", ""]
    claim = bound(admit("PersistentVolumeClaim", pvc(storageClassName="fast"), "default"))
    claim["status"]["accessModes"] = ["ReadWriteOnce"]
    assert row("PersistentVolumeClaim", claim, True, False)[:7] + row("PersistentVolumeClaim", claim, True, False)[8:] \
        == ["c1", "Bound", "pv1", "2Gi", "RWO", "fast", "<unset>", "Filesystem"]
    cls = admit("StorageClass", sc(metadata={"name": "fast", "annotations": {
        "storageclass.kubernetes.io/is-default-class": "true"}}), None)
    assert row("StorageClass", cls, False, False)[:5] == [
        "fast (default)", "kubus.io/local-path", "Delete", "Immediate", "false"]


@pytest.mark.parametrize("volume, message", [
    pytest.param({"hostPath": {"path": "/x", "type": "Folder"}},
                 'spec.volumes[0].hostPath.type: Unsupported value: "Folder": supported values: "", "BlockDevice", '
                 '"CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"', id="host-type"),
    pytest.param({"hostPath": {}}, "spec.volumes[0].hostPath.path: Required value", id="host-path"),
    pytest.param({"persistentVolumeClaim": {}}, "spec.volumes[0].persistentVolumeClaim.claimName: Required value",
                 id="claim-name"),
])
def test_pod_volume_messages(volume, message):
    body = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "busybox"}],
                                                "volumes": [{"name": "v", **volume}]}}
    assert message in refusal("Pod", body)
