"""One pod's volumes under `<node home>/pods/<uid>`: made before its first container starts, their
projected files refreshed as the kubelet fetches the objects again, given to the runtime as CRI
mounts (subPath and subPathExpr resolved once, so they never update, as Kubernetes'), and removed
with the pod (tmpfs unmounted). Each container instance also gets its termination-message file."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import structlog

from actors.kubelet.cri.expand import expand
from actors.kubelet.fieldpath import PodFacts
from actors.kubelet.volumes import atomic, hostpath
from actors.kubelet.volumes.payload import MountError, Objects, payload_of
from actors.kubelet.volumes.tmpfs import Tmpfs
from api.quantity import parse_quantity
from api.resources import pod_memory_limit

log = structlog.get_logger("kubelet")
PLUGINS = {"emptyDir": "kubernetes.io~empty-dir", "configMap": "kubernetes.io~configmap",
           "secret": "kubernetes.io~secret", "downwardAPI": "kubernetes.io~downward-api",
           "projected": "kubernetes.io~projected"}
ON_TMPFS = ("secret", "projected")  # never on the node's disk
READ_ONLY = ("configMap", "secret", "downwardAPI", "projected")  # ReadOnlyAPIDataVolumes
ON_HOST = ("hostPath", "persistentVolumeClaim")  # a directory of the node, bind-mounted as it is
MESSAGE_MAX = 4096  # the kubelet reads at most this much of a termination-message file
DEFAULT_MESSAGE_PATH = "/dev/termination-log"


def kind_of(volume: dict) -> str:
    return next((k for k in volume if k != "name"), "emptyDir")


class PodVolumes:
    def __init__(self, root: Path, node_memory: int, tmpfs: Tmpfs | None = None):
        self.root, self.node_memory, self.tmpfs = root, node_memory, tmpfs or Tmpfs()
        self.ready = False
        self.on_host: dict[str, tuple[Path, bool]] = {}  # volume -> the node's directory, read-only

    def path(self, volume: dict) -> Path:
        if volume["name"] in self.on_host:
            return self.on_host[volume["name"]][0]
        return self.root / "volumes" / PLUGINS.get(kind_of(volume), kind_of(volume)) / volume["name"]

    def setup(self, pod: dict, objects: Objects, facts: PodFacts) -> None:
        """Make every volume (raises MountError); done once, later calls refresh."""
        if self.ready:
            self.refresh(pod, objects, facts)
            return
        for volume in pod["spec"].get("volumes") or []:
            self._make(pod, volume, objects, facts)
        self.ready = True

    def _make(self, pod: dict, volume: dict, objects: Objects, facts: PodFacts) -> None:
        kind, path = kind_of(volume), self.path(volume)
        if kind == "hostPath":
            source = volume["hostPath"]
            self.on_host[volume["name"]] = (hostpath.host_path(source.get("path") or "", source.get("type")), False)
            return
        if kind == "persistentVolumeClaim":
            self.on_host[volume["name"]] = hostpath.claim_path(volume, pod["metadata"].get("namespace") or "default",
                                                               objects)
            return
        if kind not in PLUGINS:
            raise MountError(f'MountVolume.SetUp failed for volume "{volume["name"]}" : {kind} volumes are not '
                             f'supported by kubus yet')
        if kind == "emptyDir":
            path.mkdir(parents=True, exist_ok=True)
            os.chmod(path, 0o777)
            if (volume.get("emptyDir") or {}).get("medium") == "Memory":
                self.tmpfs.mount(path, self._memory_size(pod, volume["emptyDir"]), 0o777)
            return
        payload = payload_of(volume, pod, objects, facts)
        if kind in ON_TMPFS:
            self.tmpfs.mount(path, None)
        atomic.write(path, payload or {})

    def _memory_size(self, pod: dict, source: dict) -> int:
        """calculateEmptyDirMemorySize: min(node memory, the pod's memory limit, sizeLimit)."""
        sizes = [self.node_memory]
        if pod_memory_limit(pod["spec"]):
            sizes.append(pod_memory_limit(pod["spec"]))
        if source.get("sizeLimit") and parse_quantity(source["sizeLimit"]) > 0:
            sizes.append(int(parse_quantity(source["sizeLimit"])))
        return min(sizes)

    def projects(self, pod: dict) -> bool:
        """Whether any of the pod's volumes is made of ConfigMaps or Secrets (kept up to date)."""
        return any(kind_of(v) in ON_TMPFS + ("configMap",) for v in pod["spec"].get("volumes") or [])

    def refresh(self, pod: dict, objects: Objects, facts: PodFacts) -> None:
        """Write the projected volumes again from the objects as now fetched (unchanged: no write)."""
        for volume in pod["spec"].get("volumes") or []:
            if kind_of(volume) not in READ_ONLY:
                continue
            if not (self.path(volume) / atomic.DATA).is_symlink():
                continue  # never made, or removed with the pod: nothing to bring up to date
            try:
                if atomic.write(self.path(volume), payload_of(volume, pod, objects, facts) or {}):
                    log.info("kubelet.volume_updated", pod_uid=self.root.name, volume=volume["name"])
            except (MountError, OSError, KeyError, TypeError, ValueError) as exc:  # kept; the next fetch tries again
                log.info("kubelet.volume_refresh_failed", pod_uid=self.root.name, volume=volume["name"], why=str(exc))

    def mounts(self, pod: dict, container: dict, instance: int, env: dict[str, str]) -> list[dict]:
        """The container's CRI mounts, its termination-message file last."""
        volumes = {v["name"]: v for v in pod["spec"].get("volumes") or []}
        found = [self._mount(volumes[m["name"]], m, env) for m in container.get("volumeMounts") or []]
        message = self.message_file(container["name"], instance)
        message.parent.mkdir(parents=True, exist_ok=True)
        message.touch()
        os.chmod(message, 0o666)
        found.append({"container_path": container.get("terminationMessagePath") or DEFAULT_MESSAGE_PATH,
                      "host_path": str(message)})
        return found

    def _mount(self, volume: dict, mount: dict, env: dict[str, str]) -> dict:
        kind, host = kind_of(volume), self.path(volume)
        sub = mount.get("subPath") or expand(mount.get("subPathExpr") or "", env)
        if sub:
            host = subpath(host, sub, make=kind == "emptyDir")
        read_only = kind in READ_ONLY or self.on_host.get(volume["name"], (None, False))[1]
        return {"container_path": mount["mountPath"], "host_path": str(host),
                "readonly": bool(mount.get("readOnly")) or read_only}

    def message_file(self, container: str, instance: int) -> Path:
        return self.root / "containers" / container / str(instance)

    def termination_message(self, container: str, instance: int) -> str:
        try:
            with open(self.message_file(container, instance), "rb") as f:
                return f.read(MESSAGE_MAX).decode("utf-8", "replace")
        except OSError:
            return ""

    def teardown(self) -> None:
        """Unmount what the pod's volumes mounted and remove the pod's folder."""
        if not self.root.exists():
            return
        for point in self.tmpfs.mounts_under(self.root):
            self.tmpfs.unmount(point)
        shutil.rmtree(self.root, ignore_errors=True)


def for_pod(runtime, uid: str, capacity: dict) -> PodVolumes | None:
    """The pod's volumes where its runtime mounts them (`pods_root`: cri), else None."""
    root = getattr(runtime, "pods_root", None)
    return PodVolumes(root / uid, int(parse_quantity(capacity.get("memory", "8Gi")))) if root else None


def teardown(runtime, uid: str) -> None:
    volumes = for_pod(runtime, uid, {})
    if volumes is not None:
        volumes.teardown()


def clean_orphans(runtime, keep: set[str]) -> None:
    """Folders of pods this node no longer has (a kubelet that stopped before removing them)."""
    root = getattr(runtime, "pods_root", None)
    for folder in root.iterdir() if root is not None and root.is_dir() else ():
        if folder.name not in keep:
            teardown(runtime, folder.name)


def subpath(volume: Path, sub: str, make: bool) -> Path:
    """The directory (or file) `sub` names in the volume, resolved now (a projected key's file as it is now:
    never updated), made when missing if `make`. It must stay in the volume once every symlink is followed:
    a container that can write the volume (an emptyDir) can plant `evil -> /`, and the host would otherwise
    resolve — and make, and bind-mount — the host's own path (CVE-2017-1002101)."""
    if sub.startswith("/") or ".." in sub.split("/"):
        raise MountError(f"subPath {sub!r} must be a relative path without '..'")
    base, host = os.path.realpath(volume), volume / sub
    if not os.path.lexists(host) and make:
        missing = host
        while not os.path.lexists(missing.parent):
            missing = missing.parent
        _within(base, os.path.realpath(missing.parent), sub)  # before anything is made through it
        host.mkdir(mode=0o777, parents=True)
    real = os.path.realpath(host)
    _within(base, real, sub)
    return Path(real)


def _within(base: str, real: str, sub: str) -> None:
    if os.path.commonpath([base, real]) != base:
        raise MountError(f"subpath {sub!r}: {real!r} is not within volume path {base!r}")
