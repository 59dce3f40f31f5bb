"""The volumes that are a directory of the node itself: `hostPath`, checked by its type as Kubernetes'
hostPath plugin checks it (DirectoryOrCreate and FileOrCreate make what is missing: a directory 0755, an
empty file 0644), and `persistentVolumeClaim`, the bound PersistentVolume's hostPath or local path. A
local-path volume's directory is made here, on its node, by the kubelet that first mounts it (0777, as
rancher's setup script makes it): the provisioner cannot reach another host's disk."""
from __future__ import annotations

import os
import stat
from pathlib import Path

from actors.kubelet.volumes.payload import MountError, Objects
from api import storage

CHECKS = {"Directory": (stat.S_ISDIR, "directory"), "File": (stat.S_ISREG, "file"),
          "Socket": (stat.S_ISSOCK, "socket"), "CharDevice": (stat.S_ISCHR, "character device"),
          "BlockDevice": (stat.S_ISBLK, "block device")}


def host_path(path: str, type_: str | None, mode: int = 0o755) -> Path:
    """The checked path of a hostPath volume (MountError with the plugin's message when it is not what its
    type wants)."""
    target = Path(path)
    if type_ == "DirectoryOrCreate" and not target.exists():
        target.mkdir(mode=mode, parents=True)
        os.chmod(target, mode)
    elif type_ == "FileOrCreate" and not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.touch(mode=0o644)
    kind = {"DirectoryOrCreate": "Directory", "FileOrCreate": "File"}.get(type_ or "", type_ or "")
    if kind in CHECKS:
        check, word = CHECKS[kind]
        if not target.exists():
            raise MountError(f"hostPath type check failed: {path} is not a {word}")
        if not check(os.stat(target).st_mode):
            raise MountError(f"hostPath type check failed: {path} is not a {word}")
    return target


def claim_path(volume: dict, namespace: str, objects: Objects) -> tuple[Path, bool]:
    """The bound volume's directory on this node, and whether it is read-only (the claim source's readOnly)."""
    source = volume["persistentVolumeClaim"]
    name = source.get("claimName") or ""
    pvc = objects.get((storage.PersistentVolumeClaim.KIND, name))
    if not isinstance(pvc, dict):
        raise MountError(f'persistentvolumeclaim "{name}" not found' if pvc is None else str(pvc))
    bound = (pvc.get("spec") or {}).get("volumeName")
    pv = objects.get((storage.PersistentVolume.KIND, bound or ""))
    if not bound or storage.phase(pvc) != storage.BOUND or not isinstance(pv, dict):
        raise MountError(f'PVC {namespace}/{name} is not bound')
    _claimed_by(pv, pvc)
    path = storage.local_path(pv)
    if path is None:
        raise MountError(f'volume "{bound}" has no source kubus can mount (hostPath or local)')
    provisioned = (pv["metadata"].get("annotations") or {}).get(storage.PROVISIONED_BY)
    made = provisioned == storage.LOCAL_PATH_PROVISIONER
    target = host_path(path, "DirectoryOrCreate" if made else (pv["spec"].get("hostPath") or {}).get("type"),
                       0o777 if made else 0o755)
    return target, bool(source.get("readOnly"))


def _claimed_by(pv: dict, pvc: dict) -> None:
    """The volume must name this very claim (the kubelet's getPVSpec): a claim that says it is bound to
    another's volume mounts nothing."""
    ref, uid = (pv.get("spec") or {}).get("claimRef"), (pvc.get("metadata") or {}).get("uid")
    name = pv["metadata"]["name"]
    if not ref:
        raise MountError(f"found PV object {name!r} but it has a nil pv.Spec.ClaimRef indicating it is not yet "
                         f"bound to the claim")
    if ref.get("uid") != uid:
        raise MountError(f"found PV object {name!r} but its pv.Spec.ClaimRef.UID ({ref.get('uid')}) does not point "
                         f"to claim.UID ({uid})")
