"""The PersistentVolume controller's decisions (actors/controllers/pvbinding.py), table-driven: which volume a
claim binds to, the one next write of a claim and of a volume, and the events said on the way."""
from __future__ import annotations

import pytest

from actors.controllers import pvbinding
from api import storage


def pv(name: str, size: str = "1Gi", cls: str = "manual", modes=("ReadWriteOnce",), ref: dict | None = None,
       phase: str | None = None, node: str | None = None, labels: dict | None = None, policy: str = "Retain",
       provisioned: bool = False) -> dict:
    spec = {"capacity": {"storage": size}, "accessModes": list(modes), "storageClassName": cls,
            "persistentVolumeReclaimPolicy": policy, "hostPath": {"path": f"/tmp/{name}"}}
    if ref is not None:
        spec["claimRef"] = ref
    if node:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": storage.HOSTNAME_LABEL, "operator": "In", "values": [node]}]}]}}
    notes = {storage.PROVISIONED_BY: "kubus.io/local-path"} if provisioned else {}
    return {"kind": "PersistentVolume", "metadata": {"name": name, "resourceVersion": "1", "labels": labels or {},
                                                     "annotations": notes},
            "spec": spec, "status": {"phase": phase} if phase else {}}


def pvc(name: str = "data", size: str = "500Mi", cls: str = "manual", volume: str | None = None,
        notes: dict | None = None, phase: str | None = None, selector: dict | None = None, status: dict | None = None,
        modes=("ReadWriteOnce",)) -> dict:
    spec = {"accessModes": list(modes), "resources": {"requests": {"storage": size}}, "storageClassName": cls}
    if volume:
        spec["volumeName"] = volume
    if selector is not None:
        spec["selector"] = selector
    return {"kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": "ns", "uid": "u1", "resourceVersion": "7",
                         "annotations": notes or {}},
            "spec": spec, "status": {**({"phase": phase} if phase else {}), **(status or {})}}


REF = {"namespace": "ns", "name": "data", "uid": "u1"}
WAIT = {"metadata": {"name": "wait"}, "provisioner": "kubus.io/local-path",
        "volumeBindingMode": storage.WAIT_FOR_FIRST_CONSUMER}
NOW = {"metadata": {"name": "now"}, "provisioner": "example.com/now", "volumeBindingMode": storage.IMMEDIATE}


@pytest.mark.parametrize("claim, volumes, node, chosen", [
    (pvc(), [pv("big", "10Gi"), pv("small", "1Gi"), pv("tiny", "100Mi")], None, "small"),
    (pvc(), [pv("other-class", cls="gold")], None, None),
    (pvc(modes=("ReadWriteMany",)), [pv("rwo")], None, None),
    (pvc(), [pv("taken", ref={"namespace": "ns", "name": "else", "uid": "u9"})], None, None),
    (pvc(), [pv("promised", "10Gi", ref={"namespace": "ns", "name": "data"}), pv("small")], None, "promised"),
    (pvc(selector={"matchLabels": {"tier": "fast"}}), [pv("slow"), pv("fast", "5Gi", labels={"tier": "fast"})],
     None, "fast"),
    (pvc(), [pv("n1", node="node-1"), pv("n2", "2Gi", node="node-2")], "node-2", "n2"),
    (pvc(), [pv("n1", node="node-1")], "node-2", None),
], ids=["smallest-fit", "class", "modes", "taken", "promised-first", "selector", "on-node", "not-on-node"])
def test_best_match(claim, volumes, node, chosen):
    found = pvbinding.best_match(claim, volumes, node)
    assert (found and found["metadata"]["name"]) == chosen


def _write(step: pvbinding.Step) -> tuple[str, str, dict] | None:
    if not step.writes:
        return None
    w = step.writes[0]
    return w["verb"], w["kind"], w["object"]


@pytest.mark.parametrize("claim, volumes, classes, verb, kind, check, reasons", [
    # a free volume: its claimRef first, then the claim's volumeName and annotations
    (pvc(), {"small": pv("small")}, {}, "update", "PersistentVolume",
     lambda o: o["spec"]["claimRef"]["uid"] == "u1" and o["metadata"]["annotations"][storage.BOUND_BY_CONTROLLER]
     == "yes", []),
    (pvc(), {"small": pv("small", ref=REF)}, {}, "update", "PersistentVolumeClaim",
     lambda o: o["spec"]["volumeName"] == "small" and o["metadata"]["annotations"][storage.BIND_COMPLETED] == "yes",
     []),
    # bound by name: the volume's phase, then the claim's status
    (pvc(volume="small", notes={storage.BIND_COMPLETED: "yes"}), {"small": pv("small", ref=REF)}, {},
     "updateStatus", "PersistentVolume", lambda o: o["status"]["phase"] == "Bound", []),
    (pvc(volume="small", notes={storage.BIND_COMPLETED: "yes"}), {"small": pv("small", ref=REF, phase="Bound")}, {},
     "updateStatus", "PersistentVolumeClaim",
     lambda o: o["status"] == {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": "1Gi"}},
     []),
    # the volume gone under a Bound claim: Lost
    (pvc(volume="gone", phase="Bound"), {}, {}, "updateStatus", "PersistentVolumeClaim",
     lambda o: o["status"]["phase"] == "Lost", ["ClaimLost"]),
    # no volume: no class, a missing class, waiting for the first consumer, left to the provisioner
    (pvc(cls=""), {}, {}, None, None, None, ["FailedBinding"]),
    (pvc(cls="gold"), {}, {}, None, None, None, ["ProvisioningFailed"]),
    (pvc(cls="wait"), {"free": pv("free", cls="wait")}, {"wait": WAIT}, None, None, None, ["WaitForFirstConsumer"]),
    (pvc(cls="now"), {}, {"now": NOW}, "update", "PersistentVolumeClaim",
     lambda o: o["metadata"]["annotations"][storage.STORAGE_PROVISIONER] == "example.com/now",
     ["ExternalProvisioning"]),
    (pvc(cls="now", notes={storage.STORAGE_PROVISIONER: "example.com/now"}), {}, {"now": NOW}, None, None, None, []),
    # the chosen node: a free volume there binds, else the provisioner's turn
    (pvc(cls="wait", notes={storage.SELECTED_NODE: "node-2"}),
     {"n1": pv("n1", cls="wait", node="node-1"), "n2": pv("n2", cls="wait", node="node-2")}, {"wait": WAIT},
     "update", "PersistentVolume", lambda o: o["metadata"]["name"] == "n2", []),
    (pvc(cls="wait", notes={storage.SELECTED_NODE: "node-2"}), {"n1": pv("n1", cls="wait", node="node-1")},
     {"wait": WAIT}, "update", "PersistentVolumeClaim",
     lambda o: o["metadata"]["annotations"][storage.STORAGE_PROVISIONER] == "kubus.io/local-path",
     ["ExternalProvisioning"]),
], ids=["claim-ref", "volume-name", "pv-bound", "pvc-status", "lost", "no-class", "missing-class", "wffc-waits",
        "external", "external-marked", "wffc-node-volume", "wffc-node-provision"])
def test_sync_claim(claim, volumes, classes, verb, kind, check, reasons):
    step = pvbinding.sync_claim(claim, volumes, classes)
    write = _write(step)
    if verb is None:
        assert write is None
    else:
        assert write[:2] == (verb, kind) and check(write[2])
    assert [reason for _t, reason, _m in step.events] == reasons


@pytest.mark.parametrize("volume, claims, reclaims, phase, reasons", [
    (pv("free"), {}, False, "Available", []),
    (pv("free", phase="Available"), {}, False, None, []),
    (pv("promised", ref={"namespace": "ns", "name": "data"}), {}, False, "Available", []),
    (pv("bound", ref=REF), {("ns", "data"): pvc(volume="bound")}, False, "Bound", []),
    (pv("half", ref=REF), {("ns", "data"): pvc()}, False, None, []),  # the claim's step names the volume
    (pv("orphan", ref=REF, phase="Bound"), {}, False, "Released", []),
    (pv("kept", ref=REF, phase="Released"), {}, False, None, []),  # Retain: an admin's turn
    (pv("del", ref=REF, phase="Released", policy="Delete"), {}, False, "Failed", ["VolumeFailedDelete"]),
    (pv("ours", ref=REF, phase="Released", policy="Delete", provisioned=True), {}, True, None, []),
    (pv("new-claim", ref=REF, phase="Bound"), {("ns", "data"): {**pvc(volume="new-claim"),
                                                                "metadata": {**pvc()["metadata"], "uid": "u2"}}},
     False, "Released", []),
], ids=["available", "stays-available", "promised", "bound", "half-bound", "released", "retained", "no-deleter",
        "provisioner-deletes", "claim-replaced"])
def test_sync_volume(volume, claims, reclaims, phase, reasons):
    step = pvbinding.sync_volume(volume, claims, reclaims)
    write = _write(step)
    assert (write and write[2]["status"]["phase"]) == phase
    assert [reason for _t, reason, _m in step.events] == reasons
