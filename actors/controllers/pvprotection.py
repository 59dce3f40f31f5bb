"""When the protection finalizers come off (Kubernetes' pvc-protection and pv-protection controllers, pure): a
deleted claim's `kubernetes.io/pvc-protection` once no pod that has not finished uses it, a deleted volume's
`kubernetes.io/pv-protection` once it is not Bound to a claim."""
from __future__ import annotations

from api import storage

FINISHED = ("Succeeded", "Failed")


def claim_in_use(pvc: dict, pods: list[dict]) -> bool:
    """A pod of the claim's namespace that has not finished names the claim among its volumes."""
    name = pvc["metadata"]["name"]
    return any((pod.get("status") or {}).get("phase") not in FINISHED and
               any((v.get("persistentVolumeClaim") or {}).get("claimName") == name
                   for v in (pod.get("spec") or {}).get("volumes") or ())
               for pod in pods)


def claim_releasable(pvc: dict, pods: list[dict]) -> bool:
    meta = pvc["metadata"]
    return bool(meta.get("deletionTimestamp")) and storage.PVC_PROTECTION in (meta.get("finalizers") or ()) \
        and not claim_in_use(pvc, pods)


def volume_releasable(pv: dict) -> bool:
    meta = pv["metadata"]
    bound = storage.phase(pv) == storage.BOUND and bool((pv.get("spec") or {}).get("claimRef"))
    return bool(meta.get("deletionTimestamp")) and storage.PV_PROTECTION in (meta.get("finalizers") or ()) \
        and not bound


def without_finalizer(obj: dict, finalizer: str) -> dict:
    """The patch that takes one finalizer off (`$deleteFromPrimitiveList`, as Kubernetes' controllers patch)."""
    meta = obj["metadata"]
    return {"verb": "patch", "kind": obj["kind"], "namespace": meta.get("namespace"), "name": meta["name"],
            "object": {"metadata": {"$deleteFromPrimitiveList/finalizers": [finalizer]}},
            "options": {"patchType": "strategic"}}
