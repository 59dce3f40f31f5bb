"""tmpfs mounts on the node (a `medium: Memory` emptyDir, secret and projected volumes): mount(2) and
umount2(2) through libc, no `mount` process per volume. The kubelet runs as root where it mounts."""
from __future__ import annotations

import ctypes
import ctypes.util
import os
from pathlib import Path

MNT_DETACH = 2
_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


class Tmpfs:
    def mount(self, path: Path, size_bytes: int | None, mode: int = 0o755) -> None:
        """A tmpfs at `path` (made if missing) of at most `size_bytes` (none: the kernel's default)."""
        path.mkdir(parents=True, exist_ok=True)
        if self.mounted(path):
            return
        options = f"mode={mode:o}" + (f",size={size_bytes}" if size_bytes else "")
        if _libc.mount(b"tmpfs", str(path).encode(), b"tmpfs", 0, options.encode()) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"mount tmpfs at {path}: {os.strerror(err)}")

    def unmount(self, path: Path) -> None:
        """Lazily (a container may still hold it): gone from the node's tree at once."""
        if self.mounted(path) and _libc.umount2(str(path).encode(), MNT_DETACH) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"unmount {path}: {os.strerror(err)}")

    def mounted(self, path: Path) -> bool:
        return os.path.ismount(path)

    def mounts_under(self, root: Path) -> list[Path]:
        """Mount points below `root`, deepest first (/proc/self/mounts)."""
        prefix = str(root.resolve()).rstrip("/") + "/"
        with open("/proc/self/mounts", encoding="utf-8") as f:
            points = [line.split()[1].replace("\\040", " ") for line in f]
        return sorted((Path(p) for p in points if p.startswith(prefix)), key=lambda p: -len(p.parts))
