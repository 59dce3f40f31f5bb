"""What a test leaves on the host: free ports to listen on, container processes to end."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
from pathlib import Path

from actors.kubelet.cri import teardown
from actors.kubelet.volumes.tmpfs import Tmpfs


def free_port() -> int:
    """A TCP port on loopback that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def remove_runtimes(data_dir) -> list[str]:
    """The containerds the test's cri nodes started, with their pods, mounts and folders (their
    containers outlive a kubelet too); what went."""
    return [gone for home in sorted(Path(data_dir).glob("kubelet/*/cri")) for gone in teardown.teardown(home)]


def unmount_all(data_dir) -> None:
    """The tmpfs mounts pods still had when their kubelet stopped (every pod on a cri node has its
    kube-api-access volume; a kubelet leaves its pods' mounts, as their containers, when it stops)."""
    tmpfs = Tmpfs()
    for point in tmpfs.mounts_under(Path(data_dir)) if Path(data_dir).exists() else []:
        tmpfs.unmount(point)


def kill_containers(data_dir) -> None:
    """Container processes outlive their kubelet by design; a test's own go with the test: each shim
    leads its container's process group, so the whole group goes (a pod server would otherwise keep
    its address, which the next test's pod is given again)."""
    found = subprocess.run(["pgrep", "-f", f"actors.kubelet.shim {data_dir}/"], capture_output=True, text=True)
    for pid in [int(p) for p in found.stdout.split()] + _working_in(data_dir):
        try:
            os.killpg(os.getpgid(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass


def _working_in(data_dir) -> list[int]:
    """Processes whose working directory is under `data_dir`: a container's children that outlived its
    shim (a shell's `sleep` after the shell was stopped) and so escaped the search for shims."""
    root = f"{os.path.realpath(data_dir)}/"
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if os.readlink(f"/proc/{entry.name}/cwd").startswith(root):
                    found.append(int(entry.name))
            except OSError:
                pass
    return found
