"""`kubus describe` of PersistentVolumes, PersistentVolumeClaims and StorageClasses: the lines kubectl's
PersistentVolumeDescriber, PersistentVolumeClaimDescriber and StorageClassDescriber print between the metadata
and the events (finalizers, class, phase, claim or volume, modes, capacity, node affinity, source; the pods a
claim is used by; a class's provisioner, parameters and modes)."""
from __future__ import annotations

from api import storage
from api.printers.storage import access_modes
from runtime.client import Client

SOURCES = {"hostPath": "HostPath (bare host directory volume)",
           "local": "LocalVolume (a persistent volume backed by local storage on a node)"}


def _finalizers(obj: dict, width: int) -> str:
    return f"{'Finalizers:':<{width}}[{', '.join(obj['metadata'].get('finalizers') or [])}]"


def volume_lines(pv: dict) -> list[str]:
    spec, status = pv.get("spec") or {}, pv.get("status") or {}
    ref = spec.get("claimRef")
    lines = [_finalizers(pv, 17), f"StorageClass:    {spec.get('storageClassName', '')}",
             f"Status:          {'Terminating' if pv['metadata'].get('deletionTimestamp') else storage.phase(pv)}",
             f"Claim:           {ref['namespace'] + '/' + ref['name'] if ref else ''}",
             f"Reclaim Policy:  {spec.get('persistentVolumeReclaimPolicy', '')}",
             f"Access Modes:    {access_modes(spec.get('accessModes'))}",
             f"VolumeMode:      {spec.get('volumeMode') or 'Filesystem'}",
             f"Capacity:        {(spec.get('capacity') or {}).get('storage', '')}"]
    lines += _affinity(spec) + [f"Message:         {status.get('message', '')}", "Source:"]
    for key, title in SOURCES.items():
        if spec.get(key) is not None:
            lines += [f"    Type:          {title}", f"    Path:          {spec[key].get('path', '')}"]
            if key == "hostPath":
                lines.append(f"    HostPathType:  {spec[key].get('type', '')}")
    return lines


def _affinity(spec: dict) -> list[str]:
    terms = (((spec.get("nodeAffinity") or {}).get("required") or {}).get("nodeSelectorTerms")) or []
    if not terms:
        return ["Node Affinity:   <none>"]
    lines = ["Node Affinity:", "  Required Terms:"]
    for i, term in enumerate(terms):
        reqs = [f"{r['key']} {r['operator'].lower()} [{', '.join(r.get('values') or [])}]"
                for r in term.get("matchExpressions") or []]
        lines.append(f"    Term {i}:        {', '.join(reqs)}")
    return lines


def claim_lines(client: Client, pvc: dict) -> list[str]:
    spec, status, meta = pvc.get("spec") or {}, pvc.get("status") or {}, pvc["metadata"]
    pods = client.list("Pod", meta["namespace"]).items
    users = [p["metadata"]["name"] for p in pods
             if any((v.get("persistentVolumeClaim") or {}).get("claimName") == meta["name"]
                    for v in (p.get("spec") or {}).get("volumes") or [])]
    bound = bool(spec.get("volumeName"))
    return [f"StorageClass:  {spec.get('storageClassName', '')}",
            f"Status:        {'Terminating' if meta.get('deletionTimestamp') else storage.phase(pvc)}",
            f"Volume:        {spec.get('volumeName', '')}", _finalizers(pvc, 15),
            f"Capacity:      {(status.get('capacity') or {}).get('storage', '') if bound else ''}",
            f"Access Modes:  {access_modes(status.get('accessModes')) if bound else ''}",
            f"VolumeMode:    {spec.get('volumeMode') or 'Filesystem'}",
            f"Used By:       {', '.join(users) if users else '<none>'}"]


def class_lines(sc: dict) -> list[str]:
    parameters = ",".join(f"{k}={v}" for k, v in sorted((sc.get("parameters") or {}).items()))
    expansion = sc.get("allowVolumeExpansion")
    return [f"IsDefaultClass:        {'Yes' if storage.is_default_class(sc) else 'No'}",
            f"Provisioner:           {sc.get('provisioner', '')}",
            f"Parameters:            {parameters or '<none>'}",
            f"AllowVolumeExpansion:  {'<unset>' if expansion is None else str(expansion)}",
            f"MountOptions:          {', '.join(sc.get('mountOptions') or []) or '<none>'}",
            f"ReclaimPolicy:         {sc.get('reclaimPolicy') or storage.DELETE}",
            f"VolumeBindingMode:     {sc.get('volumeBindingMode') or storage.IMMEDIATE}"]
