"""The kubelet's eviction manager, its local-storage half (Kubernetes' `localStorageEviction` /
`emptyDirLimitEviction`): each monitoring interval a pod's emptyDir volumes with a `sizeLimit` are
measured as `du` does (the blocks their files hold), and a pod one of whose volumes holds more than
its limit is evicted: killed at once (grace 0), Failed with reason `Evicted` and the manager's
message, and a Warning Event says so. A `medium: Memory` emptyDir is a tmpfs of that size
(volumes/manager.py), so its writes fail before it could exceed it, as in Kubernetes."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, NamedTuple

from api.events import event
from api.gojson import go_quote
from api.quantity import amount, canonical, parse_quantity

REASON = "Evicted"  # eviction.Reason
MONITORING_INTERVAL_S = 10.0  # the kubelet's evictionMonitoringPeriod


class Limit(NamedTuple):
    volume: str
    size: int  # bytes
    text: str  # the limit as resource.Quantity.String() prints it


def limits(pod: dict) -> list[Limit]:
    """The pod's emptyDir volumes with a positive sizeLimit, in the order of its spec."""
    found = []
    for volume in pod["spec"].get("volumes") or []:
        size = (volume.get("emptyDir") or {}).get("sizeLimit") if "emptyDir" in volume else None
        if size is not None and parse_quantity(size) > 0:
            found.append(Limit(volume["name"], int(parse_quantity(size)), canonical(amount(size))))
    return found


def message(limit: Limit) -> str:
    """emptyDirMessageFmt, with its trailing space."""
    return f"Usage of EmptyDir volume {go_quote(limit.volume)} exceeds the limit {go_quote(limit.text)}. "


def exceeded(pod: dict, used: Callable[[str], int | None]) -> str | None:
    """The eviction message for the first volume whose usage is over its limit, else None; `used`
    gives a volume's usage in bytes (None: not measured)."""
    for limit in limits(pod):
        usage = used(limit.volume)
        if usage is not None and usage > limit.size:
            return message(limit)
    return None


def recorded(pod: dict, message: str) -> dict:
    """The request that records the Warning `Evicted` Event about the pod (a lost one costs nothing)."""
    ev = event({"apiVersion": "v1", "kind": "Pod", **pod}, REASON, message, "Warning", "kubelet")
    return {"verb": "create", "kind": "Event", "namespace": ev["metadata"]["namespace"], "object": ev}


def disk_usage(root: Path) -> int | None:
    """Bytes of the blocks the files under `root` hold (`du -s`: symlinks not followed, each inode once);
    None when `root` is not there."""
    if not root.is_dir():
        return None
    total, seen = 0, set()
    for folder, dirs, files in os.walk(root, onerror=lambda exc: None):
        for name in dirs + files:
            try:
                st = os.lstat(os.path.join(folder, name))
            except OSError:
                continue  # removed while measured
            if st.st_nlink < 2:  # only a hard-linked inode can be met again: a pod's million files keep no set
                total += st.st_blocks * 512
            elif (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_blocks * 512
    return total
