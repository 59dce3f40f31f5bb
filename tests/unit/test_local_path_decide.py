"""The local-path provisioner's decisions: the default class (default unless another is), which claims are
its own to provision, rancher's refusals, the volume made for a claim, and a released volume's teardown steps."""
from __future__ import annotations

from pathlib import Path

import pytest

from actors.localpath import decide
from api import storage
from tests.unit.test_pv_binding import pv, pvc

OURS = {storage.STORAGE_PROVISIONER: storage.LOCAL_PATH_PROVISIONER}
CLASS = decide.default_class([])


def test_the_default_class_is_default_unless_another_class_is():
    assert (CLASS["provisioner"], CLASS["reclaimPolicy"], CLASS["volumeBindingMode"]) == (
        "kubus.io/local-path", "Delete", "WaitForFirstConsumer")
    assert storage.is_default_class(CLASS)
    other = {"metadata": {"name": "gold", "annotations": {storage.DEFAULT_CLASS: "true"}}}
    assert not storage.is_default_class(decide.default_class([other]))


@pytest.mark.parametrize("claim, cls, wanted", [
    (pvc(cls="local-path", notes=OURS), CLASS, True),
    (pvc(cls="local-path"), CLASS, False),  # the binder has not left it to a provisioner
    (pvc(cls="local-path", notes={storage.STORAGE_PROVISIONER: "example.com/x"}), CLASS, False),
    (pvc(cls="local-path", notes=OURS), None, False),
    (pvc(cls="local-path", notes=OURS, volume="pv1"), CLASS, False),
    (pvc(cls="local-path", notes=OURS, phase="Bound"), CLASS, False),
], ids=["ours", "not-marked", "someone-else", "no-class", "named", "bound"])
def test_wants_volume(claim, cls, wanted):
    assert decide.wants_volume(claim, cls) is wanted


@pytest.mark.parametrize("claim, why", [
    (pvc(notes={storage.SELECTED_NODE: "n"}), None),
    (pvc(notes={storage.SELECTED_NODE: "n"}, modes=("ReadWriteOncePod",)), None),
    (pvc(notes={storage.SELECTED_NODE: "n"}, modes=("ReadWriteMany",)), decide.ONLY_RWO),
    (pvc(notes={storage.SELECTED_NODE: "n"}, selector={"matchLabels": {"a": "b"}}), decide.NO_SELECTOR),
    (pvc(), decide.NO_NODE),
    # the annotation is the tenant's to write, and its value a path: "/" or "../.." would put the volume's
    # directory anywhere on the host (a pod given nodeName goes past the volume's node affinity)
    (pvc(notes={storage.SELECTED_NODE: "/etc"}), 'failed to get target node: node "/etc" not found'),
    (pvc(notes={storage.SELECTED_NODE: "../../.."}), 'failed to get target node: node "../../.." not found'),
], ids=["rwo", "rwop", "rwx", "selector", "no-node", "absolute", "traversal"])
def test_refusal(claim, why):
    assert decide.refusal(claim, {"n"}) == why


def test_the_volume_of_a_claim():
    claim = pvc(cls="local-path", size="2Gi", notes={**OURS, storage.SELECTED_NODE: "node-2"})
    made = decide.volume_for(claim, {**CLASS, "reclaimPolicy": "Retain"}, Path("/var/kubus/kubelet"))
    assert made["metadata"]["name"] == "pvc-u1"
    assert made["metadata"]["annotations"] == {storage.PROVISIONED_BY: "kubus.io/local-path",
                                               storage.LOCAL_PATH_NODE: "node-2"}
    spec = made["spec"]
    assert spec["hostPath"] == {"path": "/var/kubus/kubelet/node-2/volumes/local-path/pvc-u1",
                                "type": "DirectoryOrCreate"}
    assert (spec["capacity"], spec["accessModes"], spec["persistentVolumeReclaimPolicy"], spec["storageClassName"]) \
        == ({"storage": "2Gi"}, ["ReadWriteOnce"], "Retain", "local-path")
    assert spec["nodeAffinity"]["required"]["nodeSelectorTerms"] == [{"matchExpressions": [
        {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-2"]}]}]
    assert (spec["claimRef"]["namespace"], spec["claimRef"]["name"], spec["claimRef"]["uid"]) == ("ns", "data", "u1")


def released(phase: str = "Released", policy: str = "Delete") -> dict:
    volume = pv("pvc-u1", phase=phase, policy=policy, provisioned=True)
    volume["metadata"]["annotations"][storage.LOCAL_PATH_NODE] = "node-1"
    volume["spec"]["hostPath"]["path"] = "/k/node-1/volumes/local-path/pvc-u1"
    return volume


@pytest.mark.parametrize("volume, removes", [
    (released(), True), (released(phase="Bound"), False), (released(policy="Retain"), False),
    ({**pv("by-hand", phase="Released", policy="Delete")}, False),
], ids=["released-delete", "bound", "retain", "not-ours"])
def test_to_remove(volume, removes):
    assert decide.to_remove(volume) is removes


def helper(phase: str | None) -> dict:
    return {"metadata": {"name": "helper-pod-delete-pvc-u1"}, "status": {"phase": phase} if phase else {}}


@pytest.mark.parametrize("nodes, found, step", [
    ({"node-1"}, None, "helper"),
    ({"node-1"}, helper("Running"), decide.Teardown()),
    ({"node-1"}, helper("Succeeded"), decide.Teardown(delete=True, remove=True)),
    ({"node-1"}, helper("Failed"), "failed"),
    (set(), None, decide.Teardown(delete=True)),  # its node gone: nothing to clean, as rancher
    (set(), helper("Pending"), decide.Teardown(delete=True, remove=True)),
], ids=["make-helper", "helper-running", "helper-done", "helper-failed", "node-gone", "node-gone-helper"])
def test_teardown(nodes, found, step):
    got = decide.teardown(released(), nodes, found)
    if step == "helper":
        assert got.helper["metadata"]["name"] == "helper-pod-delete-pvc-u1" and not got.delete
    elif step == "failed":
        assert got.failed and "helper pod kube-system/helper-pod-delete-pvc-u1 failed" in got.failed
        assert not got.delete
    else:
        assert got == step


def test_the_helper_pod_removes_the_directory_on_its_node():
    made = decide.helper_pod(released(), "node-1")
    spec = made["spec"]
    assert (made["metadata"]["namespace"], spec["nodeName"], spec["restartPolicy"]) == ("kube-system", "node-1",
                                                                                        "Never")
    assert spec["volumes"] == [{"name": "data", "hostPath": {"path": "/k/node-1/volumes/local-path",
                                                             "type": "DirectoryOrCreate"}}]
    container = spec["containers"][0]
    assert container["command"] == ["sh", "-c", 'rm -rf "$VOL_DIR"']
    assert container["env"] == [{"name": "VOL_DIR", "value": "/data/pvc-u1"}]
    assert made["metadata"]["labels"] == {decide.HELPER_LABEL: "pvc-u1"}
