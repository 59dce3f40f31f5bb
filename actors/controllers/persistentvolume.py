"""The PersistentVolume controller (Kubernetes' persistent-volume-binder, with the pvc- and pv-protection
controllers beside it): claims bound to volumes and both phases kept (pvbinding.py decides, one write a step),
a claim left to its class's provisioner (the storage-provisioner annotation) when no volume fits, and the
protection finalizers taken off what nothing uses any more (pvprotection.py)."""
from __future__ import annotations

from actors.controllers import pvbinding, pvprotection
from actors.controllers.base import Controller
from api import storage
from api.status import StatusError
from runtime.cache import Delta


class PersistentVolumeController(Controller):
    name = "controller.persistentvolume"
    kinds = ("persistentvolume", "persistentvolumeclaim", "storageclass", "pod")

    def keys_for(self, delta: Delta, old: dict | None) -> list[str]:
        obj, meta = delta.object, delta.object["metadata"]
        if delta.kind == "PersistentVolume":
            ref = storage.claim_ref_key(obj)
            return [f"pv:{meta['name']}"] + ([f"pvc:{ref[0]}/{ref[1]}"] if ref else []) + self._waiting()
        if delta.kind == "PersistentVolumeClaim":
            ns, name = meta["namespace"], meta["name"]
            volumes = [pv["metadata"]["name"] for pv in self.objects.get("PersistentVolume", {}).values()
                       if storage.claim_ref_key(pv) == (ns, name)]
            return [f"pvc:{ns}/{name}"] + [f"pv:{v}" for v in volumes]
        if delta.kind == "StorageClass":
            return self._waiting()
        if delta.type == "DELETED" or meta.get("deletionTimestamp") or \
                (obj.get("status") or {}).get("phase") in pvprotection.FINISHED:
            return [f"pvc:{meta['namespace']}/{(v.get('persistentVolumeClaim') or {}).get('claimName')}"
                    for v in (obj.get("spec") or {}).get("volumes") or () if v.get("persistentVolumeClaim")]
        return []

    def _waiting(self) -> list[str]:
        return [f"pvc:{ns}/{name}" for (ns, name), pvc in self.objects.get("PersistentVolumeClaim", {}).items()
                if not (pvc.get("spec") or {}).get("volumeName")]

    def reconcile(self, key: str) -> None:
        if key.startswith("pv:"):
            self._volume(key, key[3:])
        else:
            ns, name = key[4:].split("/", 1)
            self._claim(key, ns, name)

    def _claim(self, key: str, ns: str, name: str) -> None:
        pvc = self.get("PersistentVolumeClaim", ns, name)
        if pvc is None:
            return
        if pvprotection.claim_releasable(pvc, self.in_namespace("Pod", ns)):
            self._write(key, pvprotection.without_finalizer(pvc, storage.PVC_PROTECTION))
        volumes = {n: pv for (_, n), pv in self.objects.get("PersistentVolume", {}).items()}
        classes = {n: sc for (_, n), sc in self.objects.get("StorageClass", {}).items()}
        self._carry_out(key, pvc, pvbinding.sync_claim(pvc, volumes, classes))

    def _volume(self, key: str, name: str) -> None:
        pv = self.get("PersistentVolume", "", name)
        if pv is None:
            return
        if pvprotection.volume_releasable(pv):
            self._write(key, pvprotection.without_finalizer(pv, storage.PV_PROTECTION))
        provisioned = (pv["metadata"].get("annotations") or {}).get(storage.PROVISIONED_BY)
        claims = self.objects.get("PersistentVolumeClaim", {})
        self._carry_out(key, pv, pvbinding.sync_volume(pv, claims, reclaims_itself=bool(provisioned)))

    def _carry_out(self, key: str, obj: dict, step: pvbinding.Step) -> None:
        for type_, reason, message in step.events:
            self.event(obj, reason, message, type_)
        for write in step.writes:
            self._write(key, write)

    def _write(self, key: str, body: dict) -> None:
        def done(result) -> None:
            if isinstance(result, StatusError) and result.reason != "NotFound":
                self.log.info("persistentvolume.write_failed", key=key, verb=body["verb"], why=str(result))
                self.retry(key)

        self.write(body, done)
