"""A StatefulSet's pods and claims by identity (Kubernetes' stateful_set_utils.go): the pod of ordinal i
is `<set>-<i>` with the pod-name, pod-index and controller-revision-hash labels, hostname = its name
and subdomain = serviceName; each volumeClaimTemplate gives a claim `<template>-<set>-<i>` the pod's
volume of that name points at; the claims' ownerReferences follow persistentVolumeClaimRetentionPolicy."""
from __future__ import annotations

import copy

from actors.controllers.claims import controller_ref
from actors.controllers.history import HASH_LABEL

POD_NAME_LABEL = "statefulset.kubernetes.io/pod-name"
POD_INDEX_LABEL = "apps.kubernetes.io/pod-index"


def start_of(sts: dict) -> int:
    return ((sts["spec"].get("ordinals") or {}).get("start")) or 0


def ordinal_of(sts: dict, pod: dict) -> int | None:
    """getParentNameAndOrdinal: the ordinal of `<set>-<n>`, None for a name of another shape."""
    prefix, name = sts["metadata"]["name"] + "-", pod["metadata"]["name"]
    tail = name[len(prefix):] if name.startswith(prefix) else ""
    return int(tail) if tail.isdigit() and str(int(tail)) == tail else None


def wanted_ordinals(sts: dict) -> range:
    start = start_of(sts)
    return range(start, start + sts["spec"].get("replicas", 1))


def pod_name(sts: dict, ordinal: int) -> str:
    return f"{sts['metadata']['name']}-{ordinal}"


def claim_name(sts: dict, template: dict, ordinal: int) -> str:
    return f"{template['metadata']['name']}-{sts['metadata']['name']}-{ordinal}"


def revision_of(pod: dict) -> str | None:
    return (pod["metadata"].get("labels") or {}).get(HASH_LABEL)


def template_of(revision: dict) -> dict:
    """The pod template a ControllerRevision restores (ApplyRevision of its `$patch: replace` data)."""
    template = copy.deepcopy(((revision.get("data") or {}).get("spec") or {}).get("template") or {})
    template.pop("$patch", None)
    return template


def new_pod(sts: dict, template: dict, revision_name: str, ordinal: int) -> dict:
    """newVersionedStatefulSetPod: the revision's template with the pod's identity and storage."""
    template = copy.deepcopy(template)
    meta, spec = template.get("metadata") or {}, template.get("spec") or {}
    name = pod_name(sts, ordinal)
    labels = {**(meta.get("labels") or {}), POD_NAME_LABEL: name, POD_INDEX_LABEL: str(ordinal),
              HASH_LABEL: revision_name}
    spec["hostname"] = name
    if sts["spec"].get("serviceName"):
        spec["subdomain"] = sts["spec"]["serviceName"]
    claimed = {t["metadata"]["name"]: claim_name(sts, t, ordinal)
               for t in sts["spec"].get("volumeClaimTemplates") or []}
    volumes = [v for v in spec.get("volumes") or [] if v.get("name") not in claimed]
    spec["volumes"] = volumes + [{"name": t, "persistentVolumeClaim": {"claimName": c}} for t, c in claimed.items()]
    if not spec["volumes"]:
        del spec["volumes"]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": sts["metadata"]["namespace"], "labels": labels,
                         **({"annotations": meta["annotations"]} if meta.get("annotations") else {}),
                         "ownerReferences": [controller_ref(sts)]},
            "spec": spec}


def new_claims(sts: dict, ordinal: int) -> list[dict]:
    """getPersistentVolumeClaims: a claim per template, labelled with the template's and the selector's labels."""
    out = []
    match = (sts["spec"].get("selector") or {}).get("matchLabels") or {}
    for template in sts["spec"].get("volumeClaimTemplates") or []:
        meta = template.get("metadata") or {}
        claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                 "metadata": {"name": claim_name(sts, template, ordinal), "namespace": sts["metadata"]["namespace"],
                              "labels": {**(meta.get("labels") or {}), **match}},
                 "spec": copy.deepcopy(template.get("spec") or {})}
        if meta.get("annotations"):
            claim["metadata"]["annotations"] = dict(meta["annotations"])
        out.append(claim)
    return out


def _pod_ref(pod: dict) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "name": pod["metadata"]["name"], "uid": pod["metadata"]["uid"]}


def claim_owners(sts: dict, claim: dict, ordinal: int, pod: dict | None) -> list[dict] | None:
    """updateClaimOwnerRefForSetAndPod: the claim's ownerReferences under the retention policy, or None
    when they are right already. whenDeleted Delete → a reference to the set; whenScaled Delete → for an
    ordinal scaled away, a reference to its pod (both: the pod's when scaled away, else the set's).
    References of other owners stay; a claim another controller controls is left alone."""
    refs = list(claim["metadata"].get("ownerReferences") or [])
    uid = sts["metadata"]["uid"]
    foreign = next((r for r in refs if r.get("controller") and r.get("uid") != uid), None)
    if foreign is not None:
        return None
    policy = sts["spec"].get("persistentVolumeClaimRetentionPolicy") or {}
    scaled_away = ordinal not in wanted_ordinals(sts)
    pod_uid = pod["metadata"]["uid"] if pod is not None else None
    kept = [r for r in refs if r.get("uid") != uid and not (r.get("kind") == "Pod" and r.get("uid") == pod_uid)]
    wanted = []
    if policy.get("whenScaled") == "Delete" and scaled_away:
        wanted = [_pod_ref(pod)] if pod is not None else []  # gone: a stale pod reference lets the GC collect it
    elif policy.get("whenDeleted") == "Delete":
        wanted = [controller_ref(sts)]
    new = kept + wanted
    return None if new == refs else new
