"""`python -m actors.kubelet.shim EXIT_FILE --log FILE --log-max-bytes N --log-max-files K --cwd DIR
-- COMMAND...`: the parent of one container process.

It leads the container's process group, outlives the kubelet (so a kubelet restart neither kills
nor duplicates the container), forwards SIGTERM, writes the container's output to its log, rotated
and pruned to the limits (actors/kubelet/logfiles), and writes the exit code where the kubelet,
adopting it after a restart, can read it. Exit codes follow Kubernetes: 128 + signal when killed.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from actors.kubelet.logfiles import Limits, RotatingLog

CHUNK = 64 * 1024
DRAIN_S = 2.0  # after the container exits, how long its output may still be arriving


def parse(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    cut = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(prog="actors.kubelet.shim")
    parser.add_argument("exit_file")
    parser.add_argument("--log", type=Path, required=True)
    parser.add_argument("--log-max-bytes", type=int, required=True)
    parser.add_argument("--log-max-files", type=int, required=True)
    parser.add_argument("--cwd", required=True)
    args, command = parser.parse_args(argv[:cut]), argv[cut + 1:]
    if not command:
        parser.error("no COMMAND after --")
    return args, command


def main() -> int:
    args, command = parse(sys.argv[1:])
    try:
        child = subprocess.Popen(command, cwd=args.cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL)
    except OSError as exc:
        _write(args.exit_file, 127 if isinstance(exc, FileNotFoundError) else 126, str(exc))
        return 127
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, _f: child.send_signal(s))
    log = RotatingLog(args.log, Limits(args.log_max_bytes, args.log_max_files))
    copier = threading.Thread(target=_copy, args=(child.stdout.fileno(), log), daemon=True)
    copier.start()
    code = child.wait()
    copier.join(DRAIN_S)  # what it wrote last; a process it left behind holding the pipe is not waited for
    code = 128 - code if code < 0 else code
    _write(args.exit_file, code, "")
    return code


def _copy(fd: int, log: RotatingLog) -> None:
    """The container's output into its log, until every writer of the pipe has closed it."""
    try:
        while data := os.read(fd, CHUNK):
            log.write(data)
    finally:
        log.close()


def _write(path: str, code: int, message: str) -> None:
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        f.write(f"{code}\n{message}")
    os.replace(tmp, path)


if __name__ == "__main__":
    sys.exit(main())
