"""DefaultStorageClass and StorageObjectInUseProtection (Kubernetes' `plugin/pkg/admission/storage/`): a new
claim whose `storageClassName` is nil (not "", which means no class) gets the default StorageClass — of those
annotated `storageclass.kubernetes.io/is-default-class: "true"` (or the beta key) the newest, the lowest name on
a tie; every new claim and volume gets its protection finalizer, removed by the PV controller once nothing
uses it."""
from __future__ import annotations

from api import storage


def default_class(classes: list[dict]) -> str | None:
    marked = [c for c in classes if storage.is_default_class(c)]
    if not marked:
        return None
    newest = max(c["metadata"].get("creationTimestamp") or "" for c in marked)
    return min(c["metadata"]["name"] for c in marked if (c["metadata"].get("creationTimestamp") or "") == newest)


class DefaultStorageClass:
    name = "DefaultStorageClass"

    def mutate(self, a) -> None:
        if a.kind != "PersistentVolumeClaim" or a.operation != "CREATE" or a.subresource:
            return
        spec = a.obj.setdefault("spec", {})
        if spec.get("storageClassName") is not None:
            return
        chosen = default_class(a.cache.list("StorageClass"))
        if chosen:
            spec["storageClassName"] = chosen


class StorageObjectInUseProtection:
    name = "StorageObjectInUseProtection"
    FINALIZERS = {"PersistentVolumeClaim": storage.PVC_PROTECTION, "PersistentVolume": storage.PV_PROTECTION}

    def mutate(self, a) -> None:
        finalizer = self.FINALIZERS.get(a.kind)
        if finalizer is None or a.operation != "CREATE" or a.subresource:
            return
        finalizers = a.obj["metadata"].setdefault("finalizers", [])
        if finalizer not in finalizers:
            finalizers.append(finalizer)
