"""VolumeBinding (Kubernetes' `volumebinding` plugin, its PreFilter, Filter and PreBind): a pod's claims must
exist and not be going; a claim bound to a volume with node affinity admits only the nodes it names; an unbound
claim of an Immediate class keeps the pod away until the binder binds it; an unbound claim whose class waits for
the first consumer fits a node with a free volume there or a class that provisions. PreBind writes the chosen
node on each such claim (`volume.kubernetes.io/selected-node`), which starts its provisioning.

The cluster's claims, volumes and classes come in `ctx.extra["storage"]` (a `StorageView`), which the scheduler
actor keeps from its informer."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from actors.scheduler.framework import SUCCESS, UNRESOLVABLE, Context, Filtered, Plugin
from actors.scheduler.plugins.nodeselect import terms_mask
from api import storage

UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
CONFLICT = "node(s) had volume node affinity conflict"
NO_VOLUME = "node(s) didn't find available persistent volumes to bind"
NO_PROVISIONER = "kubernetes.io/no-provisioner"


@dataclass
class StorageView:
    """The scheduler's cache of the storage kinds: kind -> (namespace, name) -> object."""

    objects: dict[str, dict[tuple[str, str], dict]] = field(default_factory=lambda: {
        "PersistentVolumeClaim": {}, "PersistentVolume": {}, "StorageClass": {}})

    def apply(self, kind: str, obj: dict, gone: bool) -> None:
        meta = obj["metadata"]
        key = (meta.get("namespace") or "", meta["name"])
        if gone:
            self.objects[kind].pop(key, None)
        else:
            self.objects[kind][key] = obj

    def claim(self, namespace: str, name: str) -> dict | None:
        return self.objects["PersistentVolumeClaim"].get((namespace, name))

    def volume(self, name: str) -> dict | None:
        return self.objects["PersistentVolume"].get(("", name))

    def storage_class(self, name: str) -> dict | None:
        return self.objects["StorageClass"].get(("", name))

    def volumes(self) -> list[dict]:
        return list(self.objects["PersistentVolume"].values())


@dataclass
class Claims:
    """PreFilter's findings for one pod."""

    refusal: str | None = None  # every node fails with it
    bound: list[dict] = field(default_factory=list)  # the volumes of bound claims
    waiting: list[dict] = field(default_factory=list)  # unbound claims whose class waits for the first consumer


def claim_names(pod: dict) -> list[str]:
    """The claims a pod's volumes name (a generic ephemeral volume's claim is `<pod>-<volume>`)."""
    names = []
    for volume in (pod.get("spec") or {}).get("volumes") or ():
        if volume.get("persistentVolumeClaim"):
            names.append(volume["persistentVolumeClaim"].get("claimName") or "")
        elif volume.get("ephemeral"):
            names.append(f"{pod['metadata']['name']}-{volume['name']}")
    return names


def waits(pvc: dict, view: StorageView) -> bool:
    cls = view.storage_class(storage.claim_class(pvc))
    return cls is not None and cls.get("volumeBindingMode") == storage.WAIT_FOR_FIRST_CONSUMER


def examine(pod: dict, view: StorageView) -> Claims:
    """Kubernetes' PreFilter: the first missing or deleting claim refuses the pod, then any unbound Immediate one."""
    found = Claims()
    namespace = pod["metadata"].get("namespace") or ""
    for name in claim_names(pod):
        pvc = view.claim(namespace, name)
        if pvc is None:
            return Claims(refusal=f'persistentvolumeclaim "{name}" not found')
        if pvc["metadata"].get("deletionTimestamp"):
            return Claims(refusal=f'persistentvolumeclaim "{name}" is being deleted')
        volume_name = (pvc.get("spec") or {}).get("volumeName")
        if volume_name:
            pv = view.volume(volume_name)
            if pv is None:
                return Claims(refusal=f'persistentvolume "{volume_name}" not found')
            found.bound.append(pv)
        elif waits(pvc, view):
            found.waiting.append(pvc)
        else:
            found.refusal = UNBOUND_IMMEDIATE
    return found


def affinity_terms(pv: dict) -> list[dict] | None:
    required = (((pv.get("spec") or {}).get("nodeAffinity") or {}).get("required") or {})
    return required.get("nodeSelectorTerms") or None


def free_volume_mask(ctx: Context, idx: np.ndarray, pvc: dict, view: StorageView) -> np.ndarray:
    """The nodes where a free volume fits the claim (a static volume, matched as the binder matches it)."""
    mask = np.zeros(len(idx), dtype=bool)
    for pv in view.volumes():
        if (pv.get("spec") or {}).get("claimRef") or not storage.fits(pv, pvc):
            continue
        terms = affinity_terms(pv)
        mask |= terms_mask(ctx.table, idx, terms) if terms else True
    return mask


class VolumeBinding(Plugin):
    name = "VolumeBinding"
    filters = True

    def pre_filter(self, ctx: Context) -> bool:
        view = ctx.extra.get("storage")
        if view is None or not claim_names(ctx.pod.pod):
            return False  # Skip, as upstream for a pod without claims
        ctx.scratch[self.name] = examine(ctx.pod.pod, view)
        return True

    def filter(self, ctx: Context, idx: np.ndarray) -> Filtered:
        found: Claims = ctx.scratch[self.name]
        if found.refusal:
            return Filtered.single(np.ones(len(idx), dtype=bool), found.refusal)
        conflict = np.zeros(len(idx), dtype=bool)
        for pv in found.bound:
            terms = affinity_terms(pv)
            if terms:
                conflict |= ~terms_mask(ctx.table, idx, terms)
        unbindable = np.zeros(len(idx), dtype=bool)
        view = ctx.extra["storage"]
        for pvc in found.waiting:
            cls = view.storage_class(storage.claim_class(pvc)) or {}
            if cls.get("provisioner") in (None, "", NO_PROVISIONER):
                unbindable |= ~free_volume_mask(ctx, idx, pvc, view)
        failed = conflict | unbindable
        if not failed.any():
            return Filtered.all_pass(len(idx))
        return Filtered(np.where(failed, UNRESOLVABLE, SUCCESS).astype(np.int8),
                        lambda pos: [CONFLICT] if conflict[pos] else [NO_VOLUME])


def selections(pod: dict, view: StorageView, node: str) -> list[dict]:
    """PreBind's writes: the chosen node on each unbound claim of the pod that waits for its first consumer (a
    claim already naming a node keeps it)."""
    patches = []
    for pvc in examine(pod, view).waiting:
        if (pvc["metadata"].get("annotations") or {}).get(storage.SELECTED_NODE):
            continue
        meta = pvc["metadata"]
        patches.append({"verb": "patch", "kind": "PersistentVolumeClaim", "namespace": meta["namespace"],
                        "name": meta["name"], "options": {"patchType": "merge"},
                        "object": {"metadata": {"annotations": {storage.SELECTED_NODE: node},
                                                "resourceVersion": meta.get("resourceVersion")}}})
    return patches
