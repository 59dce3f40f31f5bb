"""The `kubus` command as tests run it: forked from the warm fork server (`python -m cli`, its imports
done once a session instead of 0.6 s of CPU a command), its output captured as `subprocess.run` would."""
from __future__ import annotations

import os
import subprocess
import threading

from runtime import spawn


def kubus(*args: str, env: dict[str, str], cwd=spawn.ROOT, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run `kubus args` to its end; stdout and stderr as text."""
    pipes = [os.pipe(), os.pipe()]
    try:
        proc = spawn.start("cli", *args, env=env, cwd=cwd, stdout=pipes[0][1], stderr=pipes[1][1])
    finally:
        for _, write in pipes:
            os.close(write)  # the child holds its own copies: the pipes end when it does
    out: list[bytes] = [b"", b""]
    readers = [threading.Thread(target=_drain, args=(read, out, i), daemon=True) for i, (read, _) in enumerate(pipes)]
    for reader in readers:
        reader.start()
    try:
        code = proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    finally:
        for reader in readers:
            reader.join(5)
    return subprocess.CompletedProcess(["kubus", *args], code, out[0].decode(errors="replace"),
                                       out[1].decode(errors="replace"))


def _drain(fd: int, out: list[bytes], index: int) -> None:
    with os.fdopen(fd, "rb") as stream:
        out[index] = stream.read()
