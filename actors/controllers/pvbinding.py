"""The PersistentVolume controller's decisions, pure, as Kubernetes' pv_controller.go makes them (syncClaim,
syncVolume, findBestMatchForClaim): which volume a claim binds to, and the one next write that moves a claim or
a volume towards its state — claimRef, volumeName and the bind annotations first, then the phases; a volume
whose claim is gone Released, then reclaimed by its policy. One write a step: each write's own event brings the
next step, so a crash between two writes is picked up where it stopped (level-based)."""
from __future__ import annotations

from dataclasses import dataclass, field

from api import quantity, storage
from api.storage import fits

NO_CLASS = "no persistent volumes available for this claim and no storage class is set"
WAITING = "waiting for first consumer to be created before binding"
EXTERNAL = ("Waiting for a volume to be created either by the external provisioner '{}' or manually by the system "
            "administrator. If volume creation is delayed, please verify that the provisioner is running and "
            "correctly registered.")
NO_DELETER = 'error getting deleter volume plugin for volume "{}": no deletable volume plugin matched'


@dataclass
class Step:
    writes: list[dict] = field(default_factory=list)  # apiserver requests, in order (at most one today)
    events: list[tuple[str, str, str]] = field(default_factory=list)  # (type, reason, message) on the object


def _size(value) -> int:
    return quantity.value(value) if value else 0


def promised_to(pv: dict, pvc: dict) -> bool:
    """The volume's claimRef names this claim (its uid, when the ref has one)."""
    ref = (pv.get("spec") or {}).get("claimRef")
    meta = pvc["metadata"]
    return bool(ref) and (ref.get("namespace"), ref.get("name")) == (meta.get("namespace"), meta["name"]) and \
        ref.get("uid") in (None, "", meta.get("uid"))


def best_match(pvc: dict, volumes: list[dict], node: str | None = None) -> dict | None:
    """A volume already promised to the claim, else the smallest free one that fits (on `node` when the
    claim waited for its first consumer)."""
    promised = [pv for pv in volumes if promised_to(pv, pvc)]
    if promised:
        return promised[0]
    free = [pv for pv in volumes if not (pv.get("spec") or {}).get("claimRef") and fits(pv, pvc)
            and (node is None or on_node(pv, node))]
    return min(free, key=lambda pv: (_size(pv["spec"]["capacity"]["storage"]), pv["metadata"]["name"]), default=None)


def on_node(pv: dict, node: str) -> bool:
    """A volume's node affinity admits the node by its hostname label (the only topology kubus gives)."""
    required = (((pv.get("spec") or {}).get("nodeAffinity") or {}).get("required") or {})
    terms = required.get("nodeSelectorTerms") or []
    if not terms:
        return True
    return any(all(_admits(req, node) for req in term.get("matchExpressions") or ()) for term in terms)


def _admits(req: dict, node: str) -> bool:
    if req.get("key") != storage.HOSTNAME_LABEL:
        return True
    values = req.get("values") or []
    return {"In": node in values, "NotIn": node not in values}.get(req.get("operator"), True)


def claim_ref(pvc: dict) -> dict:
    meta = pvc["metadata"]
    return {"kind": "PersistentVolumeClaim", "namespace": meta["namespace"], "name": meta["name"],
            "uid": meta["uid"], "apiVersion": "v1", "resourceVersion": meta.get("resourceVersion", "")}


def _update(obj: dict, status_only: bool = False) -> dict:
    meta = obj["metadata"]
    return {"verb": "updateStatus" if status_only else "update", "kind": obj["kind"],
            "namespace": meta.get("namespace"), "name": meta["name"], "resourceVersion": meta["resourceVersion"],
            "object": obj}


def _with_status(obj: dict, **status) -> dict:
    return {**obj, "status": {**(obj.get("status") or {}), **status}}


def _annotated(obj: dict, **annotations: str) -> dict:
    meta = obj["metadata"]
    return {**obj, "metadata": {**meta, "annotations": {**(meta.get("annotations") or {}), **annotations}}}


def sync_claim(pvc: dict, volumes: dict[str, dict], classes: dict[str, dict]) -> Step:
    if pvc["metadata"].get("deletionTimestamp") and storage.phase(pvc) != storage.BOUND:
        return Step()
    name = (pvc.get("spec") or {}).get("volumeName")
    if name:
        return _bound_claim(pvc, volumes.get(name))
    node = (pvc["metadata"].get("annotations") or {}).get(storage.SELECTED_NODE)
    cls = classes.get(storage.claim_class(pvc))
    waits = cls is not None and cls.get("volumeBindingMode") == storage.WAIT_FOR_FIRST_CONSUMER
    if waits and not node:
        pv = best_match(pvc, [v for v in volumes.values() if promised_to(v, pvc)])
    else:
        pv = best_match(pvc, list(volumes.values()), node if waits else None)
    if pv is not None:
        return _bind(pvc, pv)
    return _unmatched(pvc, cls, waits, node)


def _bind(pvc: dict, pv: dict) -> Step:
    """The volume's claimRef first (Kubernetes' bindVolumeToClaim), then the claim's volumeName."""
    if not ((pv.get("spec") or {}).get("claimRef") or {}).get("uid"):
        taken = _annotated({**pv, "spec": {**pv["spec"], "claimRef": claim_ref(pvc)}},
                           **{storage.BOUND_BY_CONTROLLER: "yes"})
        return Step([_update(taken)])
    claim = _annotated({**pvc, "spec": {**pvc["spec"], "volumeName": pv["metadata"]["name"]}},
                       **{storage.BIND_COMPLETED: "yes", storage.BOUND_BY_CONTROLLER: "yes"})
    return Step([_update(claim)])


def _unmatched(pvc: dict, cls: dict | None, waits: bool, node: str | None) -> Step:
    name = storage.claim_class(pvc)
    if not name:
        return Step(events=[("Normal", "FailedBinding", NO_CLASS)])
    if cls is None:
        return Step(events=[("Warning", "ProvisioningFailed", f'storageclass.storage.k8s.io "{name}" not found')])
    if waits and not node:
        return Step(events=[("Normal", "WaitForFirstConsumer", WAITING)])
    provisioner = cls.get("provisioner") or ""
    annotations = pvc["metadata"].get("annotations") or {}
    if annotations.get(storage.STORAGE_PROVISIONER) != provisioner:
        marked = _annotated(pvc, **{storage.STORAGE_PROVISIONER: provisioner,
                                    storage.BETA_STORAGE_PROVISIONER: provisioner})
        return Step([_update(marked)], [("Normal", "ExternalProvisioning", EXTERNAL.format(provisioner))])
    return Step()


def _bound_claim(pvc: dict, pv: dict | None) -> Step:
    if pv is None or not promised_to(pv, pvc):
        if storage.phase(pvc) == storage.BOUND or pv is not None:
            return _phase(pvc, storage.LOST, [("Warning", "ClaimLost", "Bound claim has lost its PersistentVolume. "
                                                                       "Data on the volume is lost!")])
        return Step()
    if (pvc["metadata"].get("annotations") or {}).get(storage.BIND_COMPLETED) != "yes":
        return Step([_update(_annotated(pvc, **{storage.BIND_COMPLETED: "yes"}))])
    if storage.phase(pv) != storage.BOUND:
        return Step([_update(_with_status(pv, phase=storage.BOUND), status_only=True)])
    spec = pv["spec"]
    status = {"phase": storage.BOUND, "accessModes": spec.get("accessModes"), "capacity": spec.get("capacity")}
    if {k: (pvc.get("status") or {}).get(k) for k in status} != status:
        return Step([_update(_with_status(pvc, **status), status_only=True)])
    return Step()


def _phase(obj: dict, phase: str, events=(), **extra) -> Step:
    if storage.phase(obj) == phase:
        return Step()
    return Step([_update(_with_status(obj, phase=phase, **extra), status_only=True)], list(events))


def sync_volume(pv: dict, claims: dict[tuple[str, str], dict], reclaims_itself: bool) -> Step:
    """A volume's phase from its claimRef; a Released volume reclaimed by its policy (`reclaims_itself`: an
    external provisioner deletes what it made, as Kubernetes leaves a provisioned volume to its provisioner)."""
    ref = (pv.get("spec") or {}).get("claimRef")
    if not ref:
        return _phase(pv, storage.AVAILABLE)
    pvc = claims.get((ref.get("namespace") or "", ref.get("name") or ""))
    if pvc is not None and ref.get("uid") in (None, "", pvc["metadata"].get("uid")):
        if (pvc.get("spec") or {}).get("volumeName") == pv["metadata"]["name"]:
            return _phase(pv, storage.BOUND)
        return Step()  # the claim's step names the volume
    if not ref.get("uid"):
        return _phase(pv, storage.AVAILABLE)  # promised to a claim not made yet
    if storage.phase(pv) != storage.RELEASED and storage.phase(pv) != storage.FAILED:
        return _phase(pv, storage.RELEASED)
    policy = pv["spec"].get("persistentVolumeReclaimPolicy")
    if storage.phase(pv) == storage.RELEASED and policy == storage.DELETE and not reclaims_itself:
        message = NO_DELETER.format(pv["metadata"]["name"])
        return _phase(pv, storage.FAILED, [("Warning", "VolumeFailedDelete", message)], message=message)
    return Step()
