"""What /proc says of a process while it lives. A zombie has died and only waits for its parent to
reap it: a process whose parent is gone belongs to init, which on this machine kind reaps ~1.5 s late."""
from __future__ import annotations

from pathlib import Path


def live_stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command's name (the state first, the start time at
    index 19); None when the process is gone or a zombie."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] == "Z" else fields


def running(pid: int) -> bool:
    return live_stat(pid) is not None
