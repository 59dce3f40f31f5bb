"""PersistentVolume, PersistentVolumeClaim and StorageClass validation with Kubernetes' messages
(`pkg/apis/core/validation/validation.go` ValidatePersistentVolume*, `pkg/apis/storage/validation`): access
modes, capacity, one volume source, reclaim policies, the immutable claim spec (but its requests' growth once
Bound) and the class fields no update may change."""
from __future__ import annotations

from api import names, quantity, selectors, storage
from api.status import Cause

PV_SOURCES = ("gcePersistentDisk", "awsElasticBlockStore", "hostPath", "glusterfs", "nfs", "rbd", "iscsi", "cinder",
              "cephfs", "fc", "flocker", "flexVolume", "azureFile", "vsphereVolume", "quobyte", "azureDisk",
              "photonPersistentDisk", "portworxVolume", "scaleIO", "local", "storageos", "csi")
RECLAIM_POLICIES = (storage.DELETE, storage.RECYCLE, storage.RETAIN)
BINDING_MODES = (storage.IMMEDIATE, storage.WAIT_FOR_FIRST_CONSUMER)
VOLUME_MODES = ("Block", "Filesystem")
PVC_IMMUTABLE = ("Forbidden: spec is immutable after creation except resources.requests and "
                 "volumeAttributesClassName for bound claims")


def _show(value) -> str:
    return f'"{value}"' if isinstance(value, str) else str(value)


def _invalid(path: str, value, message: str) -> Cause:
    return Cause(path, f"Invalid value: {_show(value)}: {message}")


def _required(path: str, detail: str = "") -> Cause:
    return Cause(path, f"Required value: {detail}" if detail else "Required value", "FieldValueRequired")


def _forbidden(path: str, detail: str) -> Cause:
    return Cause(path, f"Forbidden: {detail}", "FieldValueForbidden")


def _not_supported(path: str, value, supported) -> Cause:
    listed = ", ".join(f'"{s}"' for s in sorted(supported))
    return Cause(path, f"Unsupported value: {_show(value)}: supported values: {listed}", "FieldValueNotSupported")


def access_modes(path: str, modes: list | None, detail: str = "") -> list[Cause]:
    if not modes:
        return [_required(path, detail)]
    causes = [_not_supported(path, m, storage.ACCESS_MODES) for m in modes if m not in storage.ACCESS_MODES]
    if storage.RWOP in modes and len(modes) > 1:
        causes.append(_forbidden(path, "may not use ReadWriteOncePod with other access modes"))
    return causes


def _quantity(path: str, value, positive: bool = False) -> list[Cause]:
    try:
        amount = quantity.parse_quantity(value)
    except (ValueError, TypeError):
        return [_invalid(path, value, "quantities must match the regular expression "
                                      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")]
    if positive and amount <= 0:
        return [_invalid(path, value, "must be greater than zero")]
    return [_invalid(path, value, "must be greater than or equal to 0")] if amount < 0 else []


def _class_name(path: str, name) -> list[Cause]:
    return [_invalid(path, name, e) for e in names.subdomain_errors(name)] if name else []


def _pv_source(spec: dict) -> list[Cause]:
    present = [s for s in PV_SOURCES if spec.get(s) is not None]
    if not present:
        return [_required("spec", "must specify a volume type")]
    causes = [_forbidden(f"spec.{s}", "may not specify more than 1 volume type") for s in present[1:]]
    source, kind = spec[present[0]], present[0]
    if kind in ("hostPath", "local") and not (source or {}).get("path"):
        causes.append(_required(f"spec.{kind}.path"))
    if kind == "local":
        if (source or {}).get("path") and not source["path"].startswith("/"):
            causes.append(_invalid("spec.local.path", source["path"], "must be an absolute path"))
        if not spec.get("nodeAffinity"):
            causes.append(_required("spec.nodeAffinity", "Local volume requires node affinity"))
    return causes


def validate_pv(obj: dict) -> list[Cause]:
    spec = obj.get("spec") or {}
    causes = access_modes("spec.accessModes", spec.get("accessModes"))
    capacity = spec.get("capacity") or {}
    if not capacity:
        causes.append(_required("spec.capacity"))
    elif "storage" not in capacity or len(capacity) > 1:
        causes.append(_not_supported("spec.capacity", capacity, ("storage",)))
    for name, value in capacity.items():
        causes += _quantity(f"spec.capacity[{name}]", value)
    policy = spec.get("persistentVolumeReclaimPolicy")
    if policy not in RECLAIM_POLICIES:
        causes.append(_not_supported("spec.persistentVolumeReclaimPolicy", policy, RECLAIM_POLICIES))
    if spec.get("volumeMode") not in VOLUME_MODES:
        causes.append(_not_supported("spec.volumeMode", spec.get("volumeMode"), VOLUME_MODES))
    return causes + _class_name("spec.storageClassName", spec.get("storageClassName")) + _pv_source(spec)


def validate_pvc(obj: dict) -> list[Cause]:
    spec = obj.get("spec") or {}
    causes = access_modes("spec.accessModes", spec.get("accessModes"), "at least 1 access mode is required")
    try:
        selectors.from_label_selector(spec.get("selector"))
    except ValueError as exc:
        causes.append(_invalid("spec.selector", spec.get("selector"), str(exc)))
    requests = (spec.get("resources") or {}).get("requests") or {}
    if "storage" not in requests:
        causes.append(_required("spec.resources[storage]"))
    else:
        causes += _quantity("spec.resources[storage]", requests["storage"], positive=True)
    if spec.get("volumeMode") not in VOLUME_MODES:
        causes.append(_not_supported("spec.volumeMode", spec.get("volumeMode"), VOLUME_MODES))
    return causes + _class_name("spec.storageClassName", spec.get("storageClassName"))


def validate_class(obj: dict) -> list[Cause]:
    causes = []
    provisioner = obj.get("provisioner")
    if not provisioner:
        causes.append(_required("provisioner"))
    else:
        causes += [_invalid("provisioner", provisioner, e) for e in names.qualified_name_errors(provisioner)]
    if obj.get("reclaimPolicy") not in RECLAIM_POLICIES:
        causes.append(_not_supported("reclaimPolicy", obj.get("reclaimPolicy"), RECLAIM_POLICIES))
    if obj.get("volumeBindingMode") not in BINDING_MODES:
        causes.append(_not_supported("volumeBindingMode", obj.get("volumeBindingMode"), BINDING_MODES))
    return causes


def pv_update(old: dict, new: dict) -> list[Cause]:
    """ValidatePersistentVolumeUpdate: the volume source never changes; the class only from empty."""
    before, after = old.get("spec") or {}, new.get("spec") or {}
    causes = []
    if any(before.get(s) != after.get(s) for s in PV_SOURCES):
        causes.append(_forbidden("spec.persistentvolumesource",
                                 "spec.persistentvolumesource is immutable after creation"))
    if storage.volume_class(old) and storage.volume_class(old) != storage.volume_class(new):
        causes.append(_forbidden("spec.storageClassName", "field is immutable"))
    if before.get("volumeMode") != after.get("volumeMode"):
        causes.append(_invalid("spec.volumeMode", after.get("volumeMode"), "field is immutable"))
    if before.get("nodeAffinity") and before.get("nodeAffinity") != after.get("nodeAffinity"):
        causes.append(_invalid("spec.nodeAffinity", after.get("nodeAffinity"), "field is immutable"))
    return causes


def pvc_update(old: dict, new: dict) -> list[Cause]:
    """ValidatePersistentVolumeClaimUpdate: only `volumeName` once, and a Bound claim's requests (never
    below its status.capacity) and volumeAttributesClassName may change."""
    before, after = dict(old.get("spec") or {}), dict(new.get("spec") or {})
    bound = storage.phase(old) == storage.BOUND
    free = ("volumeName",) * (not before.get("volumeName")) + ("resources", "volumeAttributesClassName") * bound
    for field in free:
        before.pop(field, None)
        if field in after:
            before[field] = after[field]
    if before != after:
        return [_forbidden("spec", PVC_IMMUTABLE.removeprefix("Forbidden: "))]
    capacity = ((old.get("status") or {}).get("capacity") or {}).get("storage")
    wanted, was = storage.requested(new), storage.requested(old)
    shrinks = wanted and was and quantity.parse_quantity(wanted) < quantity.parse_quantity(was)
    if bound and capacity and shrinks and quantity.parse_quantity(wanted) < quantity.parse_quantity(capacity):
        return [_forbidden("spec.resources.requests.storage", "field can not be less than status.capacity")]
    return []


def class_update(old: dict, new: dict) -> list[Cause]:
    """ValidateStorageClassUpdate."""
    causes = [_forbidden(field, f"updates to {field} are forbidden.")
              for field in ("parameters", "provisioner", "reclaimPolicy") if old.get(field) != new.get(field)]
    if old.get("volumeBindingMode") != new.get("volumeBindingMode"):
        causes.append(_invalid("volumeBindingMode", new.get("volumeBindingMode"), "field is immutable"))
    return causes
