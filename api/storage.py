"""PersistentVolume, PersistentVolumeClaim (core/v1) and StorageClass (storage.k8s.io/v1): the models, their
defaults (SetDefaults_PersistentVolume, _PersistentVolumeClaim, _StorageClass) and the names the binder, the
provisioner, the scheduler and the kubelet share. Validation is `api/storage_validation.py`."""
from __future__ import annotations

from api import quantity, selectors
from api.meta import Resource

RWO, ROX, RWX, RWOP = "ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"
ACCESS_MODES = (RWO, ROX, RWX, RWOP)
RETAIN, DELETE, RECYCLE = "Retain", "Delete", "Recycle"
IMMEDIATE, WAIT_FOR_FIRST_CONSUMER = "Immediate", "WaitForFirstConsumer"
PENDING, AVAILABLE, BOUND, RELEASED, FAILED, LOST = "Pending", "Available", "Bound", "Released", "Failed", "Lost"

BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"
STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
SELECTED_NODE = "volume.kubernetes.io/selected-node"
DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class"
BETA_DEFAULT_CLASS = "storageclass.beta.kubernetes.io/is-default-class"
PVC_PROTECTION = "kubernetes.io/pvc-protection"
PV_PROTECTION = "kubernetes.io/pv-protection"
HOSTNAME_LABEL = "kubernetes.io/hostname"

LOCAL_PATH_PROVISIONER = "kubus.io/local-path"
LOCAL_PATH_CLASS = "local-path"
LOCAL_PATH_NODE = "local.path.provisioner/selected-node"


class PersistentVolume(Resource):
    KIND = "PersistentVolume"
    spec: dict | None = None
    status: dict | None = None


class PersistentVolumeClaim(Resource):
    KIND = "PersistentVolumeClaim"
    spec: dict | None = None
    status: dict | None = None


class StorageClass(Resource):
    API_VERSION = "storage.k8s.io/v1"
    KIND = "StorageClass"
    provisioner: str | None = None
    parameters: dict[str, str] | None = None
    reclaimPolicy: str | None = None
    mountOptions: list[str] | None = None
    allowVolumeExpansion: bool | None = None
    volumeBindingMode: str | None = None
    allowedTopologies: list[dict] | None = None


def pv_defaults(obj: dict) -> None:
    spec = obj.setdefault("spec", {})
    spec.setdefault("persistentVolumeReclaimPolicy", RETAIN)
    spec.setdefault("volumeMode", "Filesystem")
    obj.setdefault("status", {}).setdefault("phase", PENDING)


def pvc_defaults(obj: dict) -> None:
    obj.setdefault("spec", {}).setdefault("volumeMode", "Filesystem")
    obj.setdefault("status", {}).setdefault("phase", PENDING)


def class_defaults(obj: dict) -> None:
    obj.setdefault("reclaimPolicy", DELETE)
    obj.setdefault("volumeBindingMode", IMMEDIATE)


def is_default_class(sc: dict) -> bool:
    annotations = sc["metadata"].get("annotations") or {}
    return (annotations.get(DEFAULT_CLASS) or annotations.get(BETA_DEFAULT_CLASS)) == "true"


def claim_class(pvc: dict) -> str:
    return (pvc.get("spec") or {}).get("storageClassName") or ""


def volume_class(pv: dict) -> str:
    return (pv.get("spec") or {}).get("storageClassName") or ""


def phase(obj: dict) -> str:
    return (obj.get("status") or {}).get("phase") or PENDING


def requested(pvc: dict) -> str | None:
    return (((pvc.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage")


def claim_ref_key(pv: dict) -> tuple[str, str] | None:
    ref = (pv.get("spec") or {}).get("claimRef")
    return (ref.get("namespace") or "", ref.get("name") or "") if ref else None


def local_path(pv: dict) -> str | None:
    """The directory a PV names on its node (hostPath or local), None for other sources."""
    spec = pv.get("spec") or {}
    source = spec.get("hostPath") or spec.get("local")
    return source.get("path") if source else None


def _size(value) -> int:
    return quantity.value(value) if value else 0


def fits(pv: dict, pvc: dict) -> bool:
    """A volume that could serve a claim: class, volume mode, every access mode, size and selector."""
    spec, want = pv.get("spec") or {}, pvc.get("spec") or {}
    if volume_class(pv) != claim_class(pvc) or pv["metadata"].get("deletionTimestamp"):
        return False
    if (spec.get("volumeMode") or "Filesystem") != (want.get("volumeMode") or "Filesystem"):
        return False
    if not set(want.get("accessModes") or ()) <= set(spec.get("accessModes") or ()):
        return False
    if _size((spec.get("capacity") or {}).get("storage")) < _size(requested(pvc)):
        return False
    selector = want.get("selector")
    return selector is None or selectors.from_label_selector(selector).matches(pv["metadata"].get("labels") or {})
