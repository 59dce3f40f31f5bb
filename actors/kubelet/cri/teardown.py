"""Everything of one node's containerd taken away, as `make down` and the tests' teardown do: its pods
through CRI (so CNI gives their addresses back), the containerd, what runc still holds, the mounts
left under its folders, the folders; and the pods' tmpfs volumes a stopped kubelet left mounted.
`python -m actors.kubelet.cri.teardown DATA_DIR`: every node's under a data dir."""
from __future__ import annotations

import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import structlog

from actors.kubelet.cri.client import CRIError, RuntimeClient
from actors.kubelet.cri.containerd import Containerd
from actors.kubelet.volumes.tmpfs import Tmpfs

log = structlog.get_logger("kubelet")
REMOVERS = 4  # sandboxes stopped and removed at once


def teardown(home: Path) -> list[str]:
    """Everything of one node's containerd: its pods (stopped and removed through CRI, so CNI gives
    their addresses back; runc's own force-delete for any CRI would not remove), the containerd, the
    mounts left under its folders, the folders. What `make down` and a test's teardown run; the names
    of what went."""
    daemon = Containerd(home, "", "")
    layout = daemon.layout
    gone = _remove_pods(daemon) if daemon.answering() else []
    if daemon.pid() is not None:  # killed: its pods are gone and its folders go next, so a graceful
        daemon.stop(sig=signal.SIGKILL)  # stop (1.6 s of containerd's shutdown) would save nothing
        gone.append(f"containerd of {layout.home}")
    gone += _force_delete(layout.run / "runc" / "k8s.io")
    for mount in _mounts_under(layout.home, layout.run):
        subprocess.run(["umount", "-l", mount], capture_output=True)
    subprocess.run(["rm", "-rf", str(layout.run), str(layout.home)], capture_output=True)
    return gone


def _remove_pods(daemon: Containerd, attempts: int = 20) -> list[str]:
    """Stop and remove every sandbox, `REMOVERS` at a time (one takes ~0.14 s, most of it CNI's DEL); one
    busy starting a container is tried again a moment later."""
    client, gone = RuntimeClient(daemon.endpoint, timeout=30.0), []
    try:
        with ThreadPoolExecutor(REMOVERS) as pool:
            for _ in range(attempts):
                gone += [name for name in pool.map(lambda s: _remove_pod(client, s), client.sandboxes()) if name]
                if not client.sandboxes():
                    break
                time.sleep(0.25)  # a container between create and start cannot be removed until it is started
    except CRIError as exc:
        log.warning("kubelet.teardown_failed", error=exc.message[:200])
    finally:
        client.close()
    return gone


def _remove_pod(client: RuntimeClient, sandbox) -> str | None:
    """Stop and remove one sandbox: what went, or None when it is starting a container (tried again)."""
    try:
        client.stop_sandbox(sandbox.id)
        client.remove_sandbox(sandbox.id)
    except CRIError as exc:
        if "starting state" not in exc.message:
            raise  # e.g. its CNI configuration is gone: runc's force-delete ends it
        log.info("kubelet.teardown_retry", sandbox=sandbox.id[:12], error=exc.message[:200])
        return None
    return f"pod {sandbox.metadata.namespace}/{sandbox.metadata.name}"


def _force_delete(runc_root: Path) -> list[str]:
    """Containers runc still has after containerd went (their shims outlive it): killed and deleted."""
    if not runc_root.is_dir():
        return []
    gone = []
    for state in runc_root.iterdir():
        done = subprocess.run(["runc", "--root", str(runc_root), "delete", "--force", state.name], capture_output=True)
        if done.returncode == 0:
            gone.append(f"container {state.name[:12]}")
    return gone


def _mounts_under(*folders: Path) -> list[str]:
    """Mount points below these folders, deepest first."""
    prefixes = tuple(f"{f}/" for f in folders)
    points = [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()]
    return sorted((p for p in points if p.startswith(prefixes)), key=len, reverse=True)


def _unmount_pod_volumes(data_dir: Path) -> list[Path]:
    """The pods' tmpfs volumes (their kube-api-access tokens, Memory emptyDirs) a stopped kubelet left
    mounted: without this, `make clean` cannot remove the data dir."""
    tmpfs, gone = Tmpfs(), []
    for pods in sorted(data_dir.glob("kubelet/*/pods")):
        for point in tmpfs.mounts_under(pods.resolve()):
            tmpfs.unmount(point)
            gone.append(point)
    return gone


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m actors.kubelet.cri.teardown DATA_DIR")
        return 2
    for home in sorted(Path(argv[0]).glob("kubelet/*/cri")):
        print("\n".join(f"removed {gone}" for gone in teardown(home)))
    for point in _unmount_pod_volumes(Path(argv[0])):
        print(f"unmounted {point}")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
