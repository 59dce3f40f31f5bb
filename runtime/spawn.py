"""One way to start an actor: `start(module, *args, env=…, cwd=…, stdout=…)` forks it from the warm
parent (`runtime.forkserver`, started on first use, one per starting process) and hands back a
`Process` with `subprocess.Popen`'s manners — `pid`, `args`, `poll`, `wait`, `send_signal`,
`terminate`, `kill`, `returncode` — for the supervisor, the tests and the benches alike. The actor
leads its own session (killable by group, `os.killpg(proc.pid, …)`), as `start_new_session` made it.
Where no fork server can run (`KUBUS_COLD_START=1`), the same call runs `python -m` as before."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent  # the tree whose code the actors run


class Process:
    """A forked actor as its starter sees it; its exit status comes from the fork server."""

    def __init__(self, server: "ForkServer", ident: int, pid: int, args: list[str]):
        self.server, self.ident, self.pid, self.args = server, ident, pid, args
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = self.server.exit_of(self.ident, timeout=0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            self.returncode = self.server.exit_of(self.ident, timeout)
            if self.returncode is None:
                raise subprocess.TimeoutExpired(self.args, timeout)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


class ForkServer:
    """The starter's end of one fork server: requests go out one at a time; a reader thread takes
    the answers (a pid for each start, an exit code for each end) as they come."""

    def __init__(self):
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        env = with_root(os.environ)
        self.proc = subprocess.Popen([sys.executable, "-m", "runtime.forkserver", str(theirs.fileno())],
                                     pass_fds=[theirs.fileno()], cwd=ROOT, env=env, stdin=subprocess.DEVNULL)
        theirs.close()
        self.sock = mine
        self.lock = threading.Lock()  # one start at a time
        self.changed = threading.Condition()
        self.started: dict[int, int | OSError] = {}  # id -> pid (or why not), until its starter takes it
        self.exits: dict[int, int] = {}  # id -> exit code
        self.next_id = 1
        self.gone = False
        threading.Thread(target=self._read, name="forkserver-reader", daemon=True).start()

    def start(self, argv: list[str], env: dict[str, str], cwd: str, out: int, err: int) -> tuple[int, int]:
        """Fork `python -m argv…` with its stdout and stderr on `out` and `err`; (id, pid)."""
        message = json.dumps({"argv": argv, "env": env, "cwd": cwd}).encode()
        with self.lock:
            ident, self.next_id = self.next_id, self.next_id + 1
            socket.send_fds(self.sock, [message], [out, err])
            with self.changed:
                self.changed.wait_for(lambda: ident in self.started or self.gone)
                if self.gone:
                    raise RuntimeError("the fork server exited")
                pid = self.started.pop(ident)
                if isinstance(pid, OSError):
                    raise pid
                return ident, pid

    def exit_of(self, ident: int, timeout: float | None) -> int | None:
        """The exit code of child `ident`, waiting up to `timeout` for it (None: still running)."""
        with self.changed:
            self.changed.wait_for(lambda: ident in self.exits or self.gone, timeout)
            if ident not in self.exits and self.gone:
                raise RuntimeError("the fork server exited: the exit status of its children is lost")
            return self.exits.get(ident)

    def _read(self) -> None:
        while message := self._recv():
            answer = json.loads(message)
            with self.changed:
                if "pid" in answer or "error" in answer:
                    self.started[answer["id"]] = answer.get("pid") or OSError(answer["error"])
                else:
                    self.exits[answer["id"]] = answer["exit"]
                self.changed.notify_all()
        with self.changed:
            self.gone = True
            self.changed.notify_all()

    def _recv(self) -> bytes:
        try:
            return self.sock.recv(4096)
        except OSError:
            return b""

    def close(self) -> None:
        """Stop the fork server (its children run on, each in its own session)."""
        self.sock.close()
        self.proc.wait(10)


_server: ForkServer | None = None
_server_lock = threading.Lock()


def _forget_server() -> None:
    global _server, _server_lock
    _server, _server_lock = None, threading.Lock()  # a forked starter starts its own


os.register_at_fork(after_in_child=_forget_server)


def fork_server() -> ForkServer:
    """This process's fork server, started on first use (again if it died)."""
    global _server
    with _server_lock:
        if _server is None or _server.gone or _server.proc.poll() is not None:
            _server = ForkServer()
        return _server


def start(module: str, *args: str, env: dict[str, str] | None = None, cwd: str | Path | None = None,
          stdout: IO | int | None = None, stderr: IO | int | None = None) -> Process | subprocess.Popen:
    """Start `python -m module args` as its own process in its own session, warm when it can be.
    `stdout`/`stderr`: a file (or fd) for it, the starter's own when None; stderr=STDOUT joins them."""
    env = dict(os.environ if env is None else env)
    cwd = str(cwd or os.getcwd())
    argv = [sys.executable, "-m", module, *args]
    if os.environ.get("KUBUS_COLD_START"):
        return subprocess.Popen(argv, env=with_root(env), cwd=cwd, stdout=stdout, stderr=stderr,
                                start_new_session=True)
    out = _fd(stdout, 1)
    err = out if stderr == subprocess.STDOUT else _fd(stderr, 2)
    server = fork_server()
    ident, pid = server.start([module, *args], env, cwd, out, err)
    return Process(server, ident, pid, argv)


def with_root(env) -> dict[str, str]:
    """`env` with this tree first on PYTHONPATH: the actor runs this tree's code whatever its cwd."""
    return {**env, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))}


def _fd(stream: IO | int | None, default: int) -> int:
    if stream is None:
        return default
    return stream if isinstance(stream, int) else stream.fileno()
