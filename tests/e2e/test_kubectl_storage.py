"""Persistent storage from the command line on simulated nodes: kubectl 1.33 applies a claim (no class: the
default `local-path`) and a pod using it; the pod ends Running, its claim Bound to a provisioned volume; `get
pv,pvc,sc` prints kubectl's columns; `describe` of each through the gateway and `kubus describe` over the bus."""
from __future__ import annotations

import json
import os

import pytest

from tests.conftest import control_plane
from tests.e2e.conftest import running_gateway
from tests.e2e.test_kubectl import binary, kubectl_at, ok
from tests.integration.test_deployment import kubus
from testkit.people import token_of
from testkit.waiting import wait_until

pytestmark = pytest.mark.skipif(not os.path.exists(binary("1.33")), reason="no kubectl.1.33")

MANIFEST = [{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
             "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "2Gi"}}}},
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "app"},
             "spec": {"containers": [{"name": "c", "image": "busybox:1.35"}],
                      "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]}}]


@pytest.fixture
def kube(procs, settings, tmp_path):
    client = control_plane(procs, settings)
    procs.start("actors.scheduler")
    procs.start("actors.controllers", "persistentvolume", label="pv-controller")
    procs.start("actors.localpath", label="local-path")
    procs.start("actors.kubelet", "--node", "node-1", "--runtime", "simulated", label="kubelet")
    wait_until(lambda: client.list("Node").items and [c for c in client.list("StorageClass").items], 30,
               what="node-1 and the class local-path")
    with running_gateway(procs, settings, tmp_path) as (url, ca):
        yield client, url, ca
    client.close()


def test_a_pod_with_a_claim_of_the_default_class_runs_and_kubectl_shows_its_storage(kube, settings, tmp_path,
                                                                                   procs):
    client, url, ca = kube
    kubectl = kubectl_at("1.33", tmp_path, url, ca, token_of(settings, "admin"))
    manifest = tmp_path / "app.json"
    manifest.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": MANIFEST}))
    wait_until(lambda: kubectl("apply", "-f", str(manifest)).returncode == 0 and
               client.get("PersistentVolumeClaim", "data", "default")["spec"].get("storageClassName"), 30,
               what="the claim given the default class")
    assert ok(kubectl("wait", "--for=jsonpath={.status.phase}=Running", "pod/app", "--timeout=60s")).strip() == \
        "pod/app condition met"
    pvc = client.get("PersistentVolumeClaim", "data", "default")
    assert pvc["status"]["phase"] == "Bound" and pvc["spec"]["storageClassName"] == "local-path"
    volume = pvc["spec"]["volumeName"]

    lines = ok(kubectl("get", "pv,pvc,sc")).splitlines()
    headers = [line.split() for line in lines if line.startswith("NAME")]
    assert headers == [["NAME", "CAPACITY", "ACCESS", "MODES", "RECLAIM", "POLICY", "STATUS", "CLAIM", "STORAGECLASS",
                        "VOLUMEATTRIBUTESCLASS", "REASON", "AGE"],
                       ["NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS", "MODES", "STORAGECLASS",
                        "VOLUMEATTRIBUTESCLASS", "AGE"],
                       ["NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE", "ALLOWVOLUMEEXPANSION", "AGE"]]
    rows = {line.split()[0]: line.split() for line in lines if line and not line.startswith("NAME")}
    assert rows[f"persistentvolume/{volume}"][1:7] == ["2Gi", "RWO", "Delete", "Bound", "default/data", "local-path"]
    assert rows["persistentvolumeclaim/data"][1:6] == ["Bound", volume, "2Gi", "RWO", "local-path"]
    assert rows["storageclass.storage.k8s.io/local-path"][1:6] == [
        "(default)", "kubus.io/local-path", "Delete", "WaitForFirstConsumer", "false"]

    described = ok(kubectl("describe", "pvc", "data"))
    assert "Used By:" in described and "app" in described and "ProvisioningSucceeded" in described
    assert "kubernetes.io/hostname in [node-1]" in ok(kubectl("describe", "pv", volume))
    ours = kubus(procs, "describe", "pvc", "data")
    assert ours.returncode == 0, ours.stderr
    assert "Used By:       app" in ours.stdout and f"Volume:        {volume}" in ours.stdout
    pv = kubus(procs, "describe", "pv", volume)
    assert "    Term 0:        kubernetes.io/hostname in [node-1]" in pv.stdout and "Claim:           default/data" \
        in pv.stdout
    sc = kubus(procs, "describe", "storageclass", "local-path")
    assert "IsDefaultClass:        Yes" in sc.stdout and "VolumeBindingMode:     WaitForFirstConsumer" in sc.stdout
