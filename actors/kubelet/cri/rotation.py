"""CRI container logs rotated as the kubelet's container log manager does (k8s-containers.md §5;
pkg/kubelet/logs/container_log_manager.go): for each running container whose `<n>.log` has reached
`max_bytes`, leftovers of an interrupted compression go (`.tmp`, and a plain file whose `.gz` exists),
the oldest rotated files go so that `max_files - 2` remain, those left are gzipped, and the live file
is renamed `<n>.log.<YYYYMMDD-hhmmss>` before the runtime is told to reopen it (`ReopenContainerLog`;
on failure the rename is undone). Kept: the current file, the one just rotated and `max_files - 2`
compressed ones — `max_files` in all.

`plan` is the decision (pure); `rotate` does the file work for one log; `rotate_running` does it for
each running container of a node."""
from __future__ import annotations

import gzip
import os
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import structlog

from actors.kubelet.cri.api import cri_pb2 as pb
from actors.kubelet.cri.client import CRIError, RuntimeClient
from actors.kubelet.cri.sandboxes import NODE_LABEL
from actors.kubelet.logfiles import Limits

log = structlog.get_logger("kubelet")
GZ, TMP = ".gz", ".tmp"
STAMP = "%Y%m%d-%H%M%S"


@dataclass
class Plan:
    remove: list[str] = field(default_factory=list)  # names in the log's folder
    compress: list[str] = field(default_factory=list)
    rotate_to: str | None = None  # the live file's new name; None: nothing to rotate


def plan(name: str, siblings: list[str], size: int, limits: Limits, now: datetime) -> Plan:
    """What to do with log file `name` of `size` bytes, given the names in its folder."""
    if size < limits.max_bytes:
        return Plan()
    rotated = sorted(s for s in siblings if s.startswith(name + "."))
    unused = [s for s in rotated if s.endswith(TMP) or (not s.endswith(GZ) and s + GZ in rotated)]
    kept = [s for s in rotated if s not in unused]
    excess = kept[:max(0, len(kept) - (limits.max_files - 2))]
    kept = kept[len(excess):]
    target = f"{name}.{now.strftime(STAMP)}"
    return Plan(remove=unused + excess, compress=[s for s in kept if not s.endswith(GZ)],
                rotate_to=None if target in siblings else target)  # twice in one second: the next round


def compress(path: Path) -> None:
    """`path` → `path.gz`, through `path.gz.tmp` so that a crash leaves nothing half-written in use."""
    tmp = path.with_name(path.name + GZ + TMP)
    with open(path, "rb") as src, gzip.open(tmp, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    os.replace(tmp, path.with_name(path.name + GZ))
    path.unlink()


def rotate(path: Path, limits: Limits, reopen: Callable[[], None],
           now: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> str | None:
    """Rotate one container's live log if it is due; the rotated file's name, or None."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        reopen()  # removed under the runtime: it writes to the unlinked file until told (as the kubelet does)
        return None
    steps = plan(path.name, os.listdir(path.parent), size, limits, now())
    for name in steps.remove:
        (path.parent / name).unlink(missing_ok=True)
    for name in steps.compress:
        compress(path.parent / name)
    if steps.rotate_to is None:
        return None
    rotated = path.parent / steps.rotate_to
    os.rename(path, rotated)
    try:
        reopen()
    except Exception:
        os.rename(rotated, path)  # the runtime still writes to it: it stays the live file
        raise
    return steps.rotate_to


def rotate_running(client: RuntimeClient, node: str, limits: Limits) -> int:
    """One round over a node's running containers; how many logs were rotated. A container that
    fails is logged and the round goes on."""
    done = 0
    for container in client.containers(labels={NODE_LABEL: node}):
        if container.state != pb.CONTAINER_RUNNING:
            continue
        try:
            path = client.container_status(container.id).log_path
            if path and rotate(Path(path), limits, lambda c=container.id: client.reopen_log(c)):
                done += 1
        except (CRIError, OSError) as exc:
            log.warning("kubelet.log_rotation_failed", node=node, id=container.id[:12], error=str(exc)[:200])
    return done
