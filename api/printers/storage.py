"""kubectl's columns of PersistentVolumes, PersistentVolumeClaims and StorageClasses (`printPersistentVolume`,
`printPersistentVolumeClaim`, `printStorageClass` of kubectl 1.33)."""
from __future__ import annotations

from api import quantity, storage
from api.printers.workloads import Row, age

SHORT_MODES = {storage.RWO: "RWO", storage.ROX: "ROX", storage.RWX: "RWX", storage.RWOP: "RWOP"}
UNSET = "<unset>"


def access_modes(modes: list[str] | None) -> str:
    """GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order, whatever order they were given in."""
    return ",".join(SHORT_MODES[m] for m in storage.ACCESS_MODES if m in (modes or ()))


def _phase(obj: dict) -> str:
    return "Terminating" if obj["metadata"].get("deletionTimestamp") else (obj.get("status") or {}).get("phase", "")


def _size(capacity: dict | None) -> str:
    value = (capacity or {}).get("storage")
    return quantity.show(value) if value else "0"


def _pv(pv: dict, wide: bool) -> list[str]:
    spec, status = pv.get("spec") or {}, pv.get("status") or {}
    ref = spec.get("claimRef")
    claim = f"{ref.get('namespace', '')}/{ref.get('name', '')}" if ref else ""
    cells = [pv["metadata"]["name"], _size(spec.get("capacity")), access_modes(spec.get("accessModes")),
             spec.get("persistentVolumeReclaimPolicy", ""), _phase(pv), claim, spec.get("storageClassName", ""),
             spec.get("volumeAttributesClassName") or UNSET, status.get("reason", ""),
             age(pv["metadata"].get("creationTimestamp"))]
    return cells + ([spec.get("volumeMode") or UNSET] if wide else [])


def _pvc(pvc: dict, wide: bool) -> list[str]:
    spec, status = pvc.get("spec") or {}, pvc.get("status") or {}
    bound = bool(spec.get("volumeName"))
    cells = [pvc["metadata"]["name"], _phase(pvc), spec.get("volumeName", ""),
             _size(status.get("capacity")) if bound else "", access_modes(status.get("accessModes")) if bound else "",
             spec.get("storageClassName", ""), spec.get("volumeAttributesClassName") or UNSET,
             age(pvc["metadata"].get("creationTimestamp"))]
    return cells + ([spec.get("volumeMode") or UNSET] if wide else [])


def _class(sc: dict, wide: bool) -> list[str]:
    name = sc["metadata"]["name"] + (" (default)" if storage.is_default_class(sc) else "")
    return [name, sc.get("provisioner", ""), sc.get("reclaimPolicy") or storage.DELETE,
            sc.get("volumeBindingMode") or storage.IMMEDIATE, str(bool(sc.get("allowVolumeExpansion"))).lower(),
            age(sc["metadata"].get("creationTimestamp"))]


COLUMNS: dict[str, tuple[list[str], list[str], Row]] = {
    "PersistentVolume": (["NAME", "CAPACITY", "ACCESS MODES", "RECLAIM POLICY", "STATUS", "CLAIM", "STORAGECLASS",
                          "VOLUMEATTRIBUTESCLASS", "REASON", "AGE"], ["VOLUMEMODE"], _pv),
    "PersistentVolumeClaim": (["NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "STORAGECLASS",
                               "VOLUMEATTRIBUTESCLASS", "AGE"], ["VOLUMEMODE"], _pvc),
    "StorageClass": (["NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE", "ALLOWVOLUMEEXPANSION", "AGE"],
                     [], _class),
}
