"""hostPath and persistentVolumeClaim volumes on the node: the hostPath type checks and what the *OrCreate
types make, a claim's bound volume bind-mounted (its readOnly honoured), a local-path volume's directory made
0777 by the kubelet, and a claim not bound refused with the kubelet's message."""
from __future__ import annotations

import os
import stat

import pytest

from actors.kubelet.fieldpath import PodFacts
from actors.kubelet.volumes.manager import PodVolumes
from actors.kubelet.volumes.payload import MountError
from api import storage
from tests.unit.kubelet.test_pod_volumes import MI, FakeTmpfs, pod


def made(tmp_path, volumes, objects=None, mounts=()):
    spec = pod(volumes, mounts=mounts)
    vols = PodVolumes(tmp_path / "pod", 64 * MI, FakeTmpfs())
    vols.setup(spec, objects or {}, PodFacts())
    return vols, spec


def test_directory_or_create_and_file_or_create_make_what_is_missing(tmp_path):
    d, f = tmp_path / "made" / "dir", tmp_path / "made" / "file"
    vols, spec = made(tmp_path, [{"name": "d", "hostPath": {"path": str(d), "type": "DirectoryOrCreate"}},
                                 {"name": "f", "hostPath": {"path": str(f), "type": "FileOrCreate"}}],
                      mounts=[{"name": "d", "mountPath": "/d"}, {"name": "f", "mountPath": "/f", "readOnly": True}])
    assert d.is_dir() and f.is_file()
    found = vols.mounts(spec, spec["spec"]["containers"][0], 0, {})[:2]
    assert found == [{"container_path": "/d", "host_path": str(d), "readonly": False},
                     {"container_path": "/f", "host_path": str(f), "readonly": True}]
    vols.teardown()
    assert d.is_dir()  # the node's directory outlives the pod


@pytest.mark.parametrize("type_, message", [("Directory", "is not a directory"), ("File", "is not a file"),
                                            ("Socket", "is not a socket")])
def test_a_type_the_path_is_not_is_refused(tmp_path, type_, message):
    target = tmp_path / "missing"
    with pytest.raises(MountError, match=f"hostPath type check failed: {target} {message}"):
        made(tmp_path, [{"name": "h", "hostPath": {"path": str(target), "type": type_}}])


def claim_objects(pv_path, bound=True, provisioned=False, claimed_by="uid-data"):
    notes = {storage.PROVISIONED_BY: storage.LOCAL_PATH_PROVISIONER} if provisioned else {}
    pvc = {"metadata": {"name": "data", "uid": "uid-data"}, "spec": {"volumeName": "pv1" if bound else None},
           "status": {"phase": "Bound" if bound else "Pending"}}
    ref = {"claimRef": {"namespace": "d", "name": "data", "uid": claimed_by}} if claimed_by else {}
    pv = {"metadata": {"name": "pv1", "annotations": notes}, "spec": {"hostPath": {"path": str(pv_path)}, **ref}}
    return {("PersistentVolumeClaim", "data"): pvc, ("PersistentVolume", "pv1"): pv}


def test_a_claim_mounts_its_bound_volume_read_only_when_asked(tmp_path):
    target = tmp_path / "local-path" / "pv1"
    vols, spec = made(tmp_path, [{"name": "v", "persistentVolumeClaim": {"claimName": "data", "readOnly": True}}],
                      claim_objects(target, provisioned=True), mounts=[{"name": "v", "mountPath": "/data"}])
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o777
    [mount, _] = vols.mounts(spec, spec["spec"]["containers"][0], 0, {})
    assert mount == {"container_path": "/data", "host_path": str(target), "readonly": True}


def test_a_claim_not_bound_or_missing_is_refused(tmp_path):
    with pytest.raises(MountError, match="PVC d/data is not bound"):
        made(tmp_path, [{"name": "v", "persistentVolumeClaim": {"claimName": "data"}}],
             claim_objects(tmp_path / "x", bound=False))
    with pytest.raises(MountError, match='persistentvolumeclaim "data" not found'):
        made(tmp_path, [{"name": "v", "persistentVolumeClaim": {"claimName": "data"}}],
             {("PersistentVolumeClaim", "data"): None})


def test_a_claim_that_says_it_is_bound_to_another_claims_volume_mounts_nothing(tmp_path):
    """A tenant's claim naming another's volume, with a Bound phase of its own making: the volume names
    another claim (or none), so the kubelet refuses it as Kubernetes' does, and makes nothing there."""
    victim = tmp_path / "victim"
    claim = [{"name": "v", "persistentVolumeClaim": {"claimName": "data"}}]
    with pytest.raises(MountError, match=r"pv.Spec.ClaimRef.UID \(uid-victims\) does not point to claim.UID "
                                         r"\(uid-data\)"):
        made(tmp_path, claim, claim_objects(victim, claimed_by="uid-victims"))
    with pytest.raises(MountError, match="nil pv.Spec.ClaimRef"):
        made(tmp_path, claim, claim_objects(victim, claimed_by=None))
    assert not victim.exists()
