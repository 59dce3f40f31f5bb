"""The local-path provisioner and the scheduler's VolumeBinding with real actors on simulated nodes: the default
class `local-path` made in a fresh cluster; a pod's claim of it annotated with the chosen node by the scheduler,
provisioned there (`pvc-<uid>`, hostPath under the node's kubelet data, node affinity, the class's reclaim
policy), bound, the pod Running; the claim deleted, the volume torn down by its helper pod and deleted. A pod
whose claim is bound to a volume of one node goes there; a missing claim and an unbound Immediate one keep a pod
Pending with Kubernetes' reasons."""
from __future__ import annotations

import pytest

from actors.localpath import decide
from api import storage
from tests.integration.test_persistentvolumes import claim, gone, phase_of, volume
from testkit.waiting import wait_until


@pytest.fixture
def provisioning(cluster, procs):
    procs.start("actors.controllers", "persistentvolume", label="pv-controller")
    procs.start("actors.localpath", label="local-path")
    procs.start("actors.scheduler")
    for node in ("node-1", "node-2"):
        procs.start("actors.kubelet", "--node", node, "--runtime", "simulated", label=f"kubelet-{node}")
    wait_until(lambda: len(cluster.list("Node").items) == 2, 30, what="both nodes registered")
    return cluster


def pod(name: str, claim_name: str, **spec) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"terminationGracePeriodSeconds": 0, "containers": [{"name": "c", "image": "busybox"}],
                     "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": claim_name}}], **spec}}


def running(client, name: str) -> dict:
    return wait_until(lambda: (p := client.get("Pod", name, "default")) and
                      (p.get("status") or {}).get("phase") == "Running" and p, 30, what=f"{name} Running")


def unschedulable(client, name: str) -> str:
    def message():
        conditions = (client.get("Pod", name, "default").get("status") or {}).get("conditions") or []
        return next((c["message"] for c in conditions if c.get("reason") == "Unschedulable"), None)
    return wait_until(message, 30, what=f"{name} Unschedulable")


def test_a_claim_of_the_default_class_is_provisioned_on_its_pods_node_and_torn_down(provisioning, settings):
    cls = wait_until(lambda: [c for c in provisioning.list("StorageClass").items if c["metadata"]["name"]
                              == "local-path"], 30, what="the class local-path")[0]
    assert (cls["provisioner"], cls["reclaimPolicy"], cls["volumeBindingMode"]) == (
        "kubus.io/local-path", "Delete", "WaitForFirstConsumer")
    assert storage.is_default_class(cls)
    made = wait_until(lambda: _claim_of_default_class(provisioning), 30, what="a claim defaulted to local-path")
    uid = made["metadata"]["uid"]
    provisioning.create(pod("user", "data"), "default")
    bound = phase_of(provisioning, "PersistentVolumeClaim", "data", "Bound", "default")
    node = running(provisioning, "user")["spec"]["nodeName"]
    assert bound["metadata"]["annotations"][storage.SELECTED_NODE] == node
    assert bound["spec"]["volumeName"] == f"pvc-{uid}"
    pv = phase_of(provisioning, "PersistentVolume", f"pvc-{uid}", "Bound")
    assert pv["spec"]["hostPath"]["path"] == str(settings.data_dir.resolve() / "kubelet" / node / "volumes" /
                                                 "local-path" / f"pvc-{uid}")
    assert pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]["values"] == [node]
    assert (pv["spec"]["persistentVolumeReclaimPolicy"], pv["spec"]["capacity"]) == ("Delete", {"storage": "1Gi"})
    assert pv["metadata"]["annotations"][storage.PROVISIONED_BY] == "kubus.io/local-path"

    provisioning.delete("Pod", "user", "default")
    provisioning.delete("PersistentVolumeClaim", "data", "default")
    wait_until(lambda: gone(provisioning, "PersistentVolume", f"pvc-{uid}"), 60, what="the volume deleted")
    wait_until(lambda: gone(provisioning, "Pod", f"helper-pod-delete-pvc-{uid}", decide.HELPER_NAMESPACE), 30,
               what="its helper pod gone")
    reasons = [e["reason"] for e in provisioning.list("Event", "default").items
               if e["involvedObject"]["name"] == "data"]
    assert {"WaitForFirstConsumer", "ExternalProvisioning", "Provisioning", "ProvisioningSucceeded"} <= set(reasons)


def _claim_of_default_class(client) -> dict | None:
    """The DefaultStorageClass admission sees the class made a moment ago through its cache: ask until it does."""
    made = client.create(claim("data", "1Gi", cls=None), "default")
    if made["spec"].get("storageClassName") == "local-path":
        return made
    client.delete("PersistentVolumeClaim", "data", "default")
    wait_until(lambda: gone(client, "PersistentVolumeClaim", "data", "default"), 10, what="the claim gone")
    return None


def test_volume_binding_filters_nodes_by_claims(provisioning):
    pinned = volume("pinned", "1Gi")
    pinned["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-2"]}]}]}}
    provisioning.create(pinned)
    provisioning.create(claim("static", "1Gi"), "default")  # class "manual": no such class, so Immediate
    phase_of(provisioning, "PersistentVolumeClaim", "static", "Bound", "default")
    provisioning.create(pod("on-pinned", "static"), "default")
    assert running(provisioning, "on-pinned")["spec"]["nodeName"] == "node-2"

    provisioning.create(pod("no-claim", "nothing"), "default")
    assert unschedulable(provisioning, "no-claim") == \
        '0/2 nodes are available: 2 persistentvolumeclaim "nothing" not found.'
    provisioning.create(claim("unbound", "5Gi"), "default")
    provisioning.create(pod("waits", "unbound"), "default")
    assert unschedulable(provisioning, "waits") == \
        "0/2 nodes are available: 2 pod has unbound immediate PersistentVolumeClaims."
    provisioning.create(pod("conflict", "static", nodeSelector={"kubernetes.io/hostname": "node-1"}), "default")
    assert unschedulable(provisioning, "conflict") == ("0/2 nodes are available: 1 node(s) didn't match Pod's node "
                                                       "affinity/selector, 1 node(s) had volume node affinity "
                                                       "conflict.")
