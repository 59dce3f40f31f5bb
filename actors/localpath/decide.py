"""The local-path provisioner's decisions, pure, as rancher's local-path-provisioner (provisioner.go) and the
external-provisioner library it runs on make them: which claims are ours to provision, the PersistentVolume made
for one (`pvc-<claim uid>`, a hostPath directory `<kubelet data>/<node>/volumes/local-path/<pv>` on the node the
scheduler chose, node affinity to it, the claim's size and modes, the class's reclaim policy), the default class
a fresh cluster gets, and what a released volume of ours needs next.

Who touches the disk: the directory lives on its node, which the provisioner cannot reach. The node's kubelet
makes it (0777) when it first mounts the claim (actors/kubelet/volumes/hostpath.py); removing it is the job of a
helper pod `helper-pod-delete-<pv>` pinned to that node, mounting the parent directory and running `rm -rf`
(rancher's teardown), after which the provisioner deletes the PersistentVolume. A volume whose node is gone is
deleted without a helper, as rancher does."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from api import storage

HELPER_IMAGE = "busybox:1.35"
HELPER_NAMESPACE = "kube-system"
HELPER_LABEL = "kubus.io/local-path-helper"
SIMULATED_EXIT_CODE = "kubus.io/simulated-exit-code"  # a simulated node's helper finishes at once
ONLY_RWO = "NodePath only supports ReadWriteOnce and ReadWriteOncePod (1.22+) access modes"
NO_SELECTOR = "claim.Spec.Selector is not supported"
NO_NODE = "configuration error, no node was specified"


def volume_dir(kubelet_data: Path, node: str, pv_name: str) -> str:
    return str(kubelet_data / node / "volumes" / "local-path" / pv_name)


def default_class(others: list[dict]) -> dict:
    """The class `local-path` a fresh cluster gets, its default unless another class is."""
    default = not any(storage.is_default_class(sc) for sc in others)
    return {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": storage.LOCAL_PATH_CLASS,
                         "annotations": {storage.DEFAULT_CLASS: "true"} if default else {}},
            "provisioner": storage.LOCAL_PATH_PROVISIONER, "reclaimPolicy": storage.DELETE,
            "volumeBindingMode": storage.WAIT_FOR_FIRST_CONSUMER}


def wants_volume(pvc: dict, cls: dict | None) -> bool:
    """A claim left to us (the binder's storage-provisioner annotation names us), not bound, not going."""
    meta = pvc["metadata"]
    notes = meta.get("annotations") or {}
    ours = storage.LOCAL_PATH_PROVISIONER in (notes.get(storage.STORAGE_PROVISIONER),
                                              notes.get(storage.BETA_STORAGE_PROVISIONER))
    return ours and cls is not None and cls.get("provisioner") == storage.LOCAL_PATH_PROVISIONER and \
        not (pvc.get("spec") or {}).get("volumeName") and not meta.get("deletionTimestamp") and \
        storage.phase(pvc) == storage.PENDING


def refusal(pvc: dict, nodes: set[str]) -> str | None:
    """Why rancher's Provision refuses a claim, or None. The selected node must be a Node (external-provisioner
    gets it by name): the annotation is the claim's, which its tenant may write, and its value becomes a path."""
    spec = pvc.get("spec") or {}
    if spec.get("selector") is not None:
        return NO_SELECTOR
    if not set(spec.get("accessModes") or ()) <= {storage.RWO, storage.RWOP}:
        return ONLY_RWO
    node = (pvc["metadata"].get("annotations") or {}).get(storage.SELECTED_NODE)
    if not node:
        return NO_NODE
    if node not in nodes:
        return f'failed to get target node: node "{node}" not found'
    return None


def pv_name(pvc: dict) -> str:
    return f"pvc-{pvc['metadata']['uid']}"


def volume_for(pvc: dict, cls: dict, kubelet_data: Path) -> dict:
    """The PersistentVolume provisioned for a claim, promised to it by its claimRef (the binder completes the
    bind, as for every external provisioner)."""
    meta, spec = pvc["metadata"], pvc.get("spec") or {}
    node, name = meta["annotations"][storage.SELECTED_NODE], pv_name(pvc)
    term = {"matchExpressions": [{"key": storage.HOSTNAME_LABEL, "operator": "In", "values": [node]}]}
    return {"apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": name, "annotations": {storage.PROVISIONED_BY: storage.LOCAL_PATH_PROVISIONER,
                                                       storage.LOCAL_PATH_NODE: node}},
            "spec": {"capacity": {"storage": storage.requested(pvc) or "0"},
                     "accessModes": list(spec.get("accessModes") or [storage.RWO]),
                     "persistentVolumeReclaimPolicy": cls.get("reclaimPolicy") or storage.DELETE,
                     "storageClassName": storage.claim_class(pvc), "volumeMode": spec.get("volumeMode") or "Filesystem",
                     "hostPath": {"path": volume_dir(kubelet_data, node, name), "type": "DirectoryOrCreate"},
                     "nodeAffinity": {"required": {"nodeSelectorTerms": [term]}},
                     "claimRef": {"kind": "PersistentVolumeClaim", "apiVersion": "v1", "namespace": meta["namespace"],
                                  "name": meta["name"], "uid": meta["uid"],
                                  "resourceVersion": meta.get("resourceVersion", "")}}}


# ---- a released volume --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Teardown:
    """What a released Delete volume of ours needs next: `helper` to create, `remove` the helper pod, `delete` the
    volume, `failed` a helper's failure to report."""

    helper: dict | None = None
    remove: bool = False
    delete: bool = False
    failed: str | None = None


def node_of(pv: dict) -> str | None:
    return (pv["metadata"].get("annotations") or {}).get(storage.LOCAL_PATH_NODE)


def helper_name(pv: dict) -> str:
    return f"helper-pod-delete-{pv['metadata']['name']}"


def to_remove(pv: dict) -> bool:
    notes = pv["metadata"].get("annotations") or {}
    return notes.get(storage.PROVISIONED_BY) == storage.LOCAL_PATH_PROVISIONER and \
        storage.phase(pv) == storage.RELEASED and not pv["metadata"].get("deletionTimestamp") and \
        (pv.get("spec") or {}).get("persistentVolumeReclaimPolicy") == storage.DELETE


def teardown(pv: dict, nodes: set[str], helper: dict | None) -> Teardown:
    node = node_of(pv)
    if node not in nodes:
        return Teardown(delete=True, remove=helper is not None)
    if helper is None:
        return Teardown(helper=helper_pod(pv, node))
    phase = (helper.get("status") or {}).get("phase")
    if phase == "Succeeded":
        return Teardown(delete=True, remove=True)
    if phase == "Failed":
        return Teardown(failed=f"failed to delete volume {pv['metadata']['name']}: helper pod "
                               f"{HELPER_NAMESPACE}/{helper_name(pv)} failed")
    return Teardown()


def helper_pod(pv: dict, node: str, image: str = HELPER_IMAGE) -> dict:
    """Rancher's `helper-pod-delete-<pv>`: the volume's parent directory mounted at /data, `rm -rf` its own."""
    path = Path(storage.local_path(pv) or "")
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": helper_name(pv), "namespace": HELPER_NAMESPACE,
                         "labels": {HELPER_LABEL: pv["metadata"]["name"]},
                         "annotations": {SIMULATED_EXIT_CODE: "0"}},
            "spec": {"nodeName": node, "restartPolicy": "Never", "automountServiceAccountToken": False,
                     "terminationGracePeriodSeconds": 0, "tolerations": [{"operator": "Exists"}],
                     "containers": [{"name": "helper-pod", "image": image, "imagePullPolicy": "IfNotPresent",
                                     "command": ["sh", "-c", 'rm -rf "$VOL_DIR"'],
                                     "env": [{"name": "VOL_DIR", "value": f"/data/{path.name}"}],
                                     "volumeMounts": [{"name": "data", "mountPath": "/data"}]}],
                     "volumes": [{"name": "data", "hostPath": {"path": str(path.parent),
                                                               "type": "DirectoryOrCreate"}}]}}
