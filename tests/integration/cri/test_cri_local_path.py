"""A claim of the default class `local-path` in real containers: a pod writes a file to it, is deleted, a new pod
on the same claim reads the file back (the directory the provisioner named, made 0777 by the node's kubelet);
deleting the claim (reclaim Delete) runs the helper pod that removes the directory and deletes the volume, and
nothing is left behind (no directory, no volume, no helper pod)."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from actors.localpath import decide
from api import storage
from tests.integration.cri.test_cri_volumes import finished, pod, sh
from tests.integration.test_persistentvolumes import claim, gone, phase_of
from testkit.waiting import wait_until


@pytest.fixture
def local_path(cri_cluster, procs):
    procs.start("actors.controllers", "persistentvolume", label="pv-controller")
    procs.start("actors.localpath", label="local-path")
    wait_until(lambda: [c for c in cri_cluster.list("StorageClass").items
                        if c["metadata"]["name"] == storage.LOCAL_PATH_CLASS], 30, what="the class local-path")
    return cri_cluster


def with_claim(name: str, script: str) -> dict:
    return pod(name, [sh("main", script, volumeMounts=[{"name": "d", "mountPath": "/data"}])],
               [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}])


def test_data_outlives_its_pod_and_goes_with_its_claim(local_path):
    made = local_path.create(claim("data", "64Mi", cls=storage.LOCAL_PATH_CLASS))
    local_path.create(with_claim("writer", "echo kept > /data/note && ls -ld /data"))
    assert finished(local_path, "writer")["exitCode"] == 0
    pv = phase_of(local_path, "PersistentVolume", f"pvc-{made['metadata']['uid']}", "Bound")
    folder = Path(pv["spec"]["hostPath"]["path"])
    assert folder.parent.parent.parent.name == "node-1" and (folder / "note").read_text() == "kept\n"
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o777
    local_path.delete("Pod", "writer")
    wait_until(lambda: gone(local_path, "Pod", "writer"), 60, what="the writer gone")

    local_path.create(with_claim("reader", "cat /data/note"))
    assert finished(local_path, "reader")["exitCode"] == 0
    assert local_path.logs("reader")["text"] == "kept\n"
    local_path.delete("Pod", "reader")
    wait_until(lambda: gone(local_path, "Pod", "reader"), 60, what="the reader gone")

    local_path.delete("PersistentVolumeClaim", "data")
    wait_until(lambda: gone(local_path, "PersistentVolume", pv["metadata"]["name"]), 90, what="the volume deleted")
    assert not folder.exists()
    wait_until(lambda: gone(local_path, "Pod", f"helper-pod-delete-{pv['metadata']['name']}",
                            decide.HELPER_NAMESPACE), 60, what="the helper pod gone")
