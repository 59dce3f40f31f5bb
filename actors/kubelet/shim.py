"""`python -m actors.kubelet.shim EXIT_FILE -- COMMAND...`: the parent of one container process.

It leads the container's process group, outlives the kubelet (so a kubelet restart neither kills
nor duplicates the container), forwards SIGTERM, and writes the exit code where the kubelet,
adopting it after a restart, can read it. Exit codes follow Kubernetes: 128 + signal when killed.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys


def main() -> int:
    exit_file, sep, *command = sys.argv[1:]
    assert sep == "--" and command, "usage: shim EXIT_FILE -- COMMAND..."
    try:
        child = subprocess.Popen(command)
    except OSError as exc:
        _write(exit_file, 127 if isinstance(exc, FileNotFoundError) else 126, str(exc))
        return 127
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, _f: child.send_signal(s))
    code = child.wait()
    code = 128 - code if code < 0 else code
    _write(exit_file, code, "")
    return code


def _write(path: str, code: int, message: str) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        f.write(f"{code}\n{message}")
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main())
