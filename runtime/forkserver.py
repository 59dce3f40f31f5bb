"""The warm parent: a process that has imported the runtime, the bus, pika, msgpack, pydantic,
structlog and every actor's modules once, froze them out of the collector's way, and forks each
actor from there — still one OS process per actor, in its own session, with its own environment,
arguments, working directory and log — in milliseconds instead of the 0.6–0.9 s of CPU an import
costs. `runtime.spawn` starts it and speaks to it; `python -m <actor>` stays what it was.

The server has no threads and opens no connection, so a child inherits neither. It talks over one
unix socket (SOCK_SEQPACKET: a message is a datagram, file descriptors ride along):
  → {"argv": [module, *args], "env": {...}, "cwd": path} with the child's stdout and stderr fds
  ← {"id": n, "pid": pid}            the child is running (or {"id": n, "error": text}: no fork)
  ← {"id": n, "exit": code}          it ended (negative: the signal that killed it, as Popen has it)
A starter that goes away (its end of the socket closes) leaves the children running, as a parent
of `start_new_session` processes does today."""
from __future__ import annotations

import ast
import atexit
import gc
import importlib
import importlib.util
import io
import json
import os
import runpy
import selectors
import signal
import socket
import sys
import threading
import traceback

# the programs the fork server is warm for: what their `__main__` imports is imported once, here
ENTRIES = ("store", "actors.apiserver", "actors.scheduler", "actors.controllers", "actors.kubelet",
           "actors.proxy", "actors.dns", "actors.ingress", "actors.gateway", "cli")  # cli: 0.09 s more
MAX_MESSAGE = 1 << 20  # a request: argv and an environment


def preload(entries: tuple[str, ...] = ENTRIES) -> list[str]:
    """Import what each entry's `__main__` imports (not the `__main__` itself: runpy runs it fresh);
    the modules imported."""
    done = []
    for entry in entries:
        spec = importlib.util.find_spec(f"{entry}.__main__")
        tree = ast.parse(open(spec.origin).read())
        for node in tree.body:
            names = ([node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            for name in names:
                importlib.import_module(name)
                done.append(name)
    return done


class Child:
    """What a forked child runs, once it has left the server's loop (so no frame of it is live)."""

    def __init__(self, request: dict):
        self.argv, self.env, self.cwd = request["argv"], request["env"], request["cwd"]

    def run(self) -> None:
        """Become the process `python -m argv[0] argv[1:]` would have been."""
        _name_process(self.argv)
        os.chdir(self.cwd)
        os.environ.clear()
        os.environ.update(self.env)
        sys.path[0] = self.cwd  # `-m` puts the working directory first
        unbuffered = bool(self.env.get("PYTHONUNBUFFERED"))
        sys.stdout = _text(1, unbuffered)
        sys.stderr = _text(2, True)
        sys.argv = [self.argv[0], *self.argv[1:]]
        runpy.run_module(self.argv[0], run_name="__main__", alter_sys=True)


def _name_process(argv: list[str]) -> None:
    """The process's name as `top` and `ps -o comm` show it (15 bytes): the actor's, not the interpreter's,
    so which actor spends the CPU can be seen (`controllers replicaset` → `ctl-replicaset`)."""
    module = argv[0].rsplit(".", 1)[-1]
    name = f"ctl-{argv[1]}" if module == "controllers" and len(argv) > 1 else module
    try:
        with open("/proc/self/comm", "w") as comm:
            comm.write(name[:15])
    except OSError:  # not Linux
        pass


def _text(fd: int, unbuffered: bool) -> io.TextIOWrapper:
    return io.TextIOWrapper(open(fd, "wb", closefd=False), line_buffering=True, write_through=unbuffered,
                            errors="backslashreplace")


class Server:
    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.children: dict[int, int] = {}  # pid -> id
        self.next_id = 1
        self.wake_r, wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(wake_w, False)
        self.wake_w = wake_w

    def serve(self) -> Child | None:
        """Answer requests and report exits until the starter goes (None), or return in a new child."""
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        with selectors.DefaultSelector() as sel:
            sel.register(self.sock, selectors.EVENT_READ)
            sel.register(self.wake_r, selectors.EVENT_READ)
            while True:
                for key, _ in sel.select():
                    if key.fileobj is self.wake_r:
                        self._drain_wakeups()
                        self.reap()
                        continue
                    message, fds, _flags, _addr = socket.recv_fds(self.sock, MAX_MESSAGE, 2)
                    if not message:
                        return None
                    child = self.fork(json.loads(message), fds)
                    if child is not None:
                        return child

    def _drain_wakeups(self) -> None:
        try:
            while os.read(self.wake_r, 512):
                pass
        except BlockingIOError:
            pass

    def fork(self, request: dict, fds: list[int]) -> Child | None:
        ident, self.next_id = self.next_id, self.next_id + 1
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            pid = os.fork()
        except OSError as exc:  # out of processes or memory: that start fails, the server stays
            for fd in fds:
                os.close(fd)
            self._send({"id": ident, "error": str(exc)})
            return None
        if pid == 0:
            self._become_child(fds)
            return Child(request)
        for fd in fds:
            os.close(fd)
        self.children[pid] = ident
        self._send({"id": ident, "pid": pid})
        return None

    def _become_child(self, fds: list[int]) -> None:
        """Its own session, its stdout and stderr, nothing of the server's: no socket, no wakeup fd,
        Python's own signal dispositions (SIGINT raises KeyboardInterrupt, SIGCHLD default)."""
        os.setsid()
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        out, err = fds
        os.dup2(out, 1)
        os.dup2(err, 2)
        for fd in {out, err, self.wake_r, self.wake_w}:
            os.close(fd)
        self.sock.close()

    def reap(self) -> None:
        """Report every child that ended (their exit statuses are the starter's to see)."""
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            ident = self.children.pop(pid, None)
            if ident is not None:
                self._send({"id": ident, "exit": os.waitstatus_to_exitcode(status)})

    def _send(self, message: dict) -> None:
        try:
            self.sock.send(json.dumps(message).encode())
        except OSError:  # the starter is gone; its children run on
            pass


def main() -> None:
    sock = socket.socket(fileno=int(sys.argv[1]))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the starter's to handle, not ours
    preload()
    gc.collect()
    gc.freeze()  # what was imported lives as long as every child: never scanned, its pages stay shared
    child = Server(sock).serve()
    if child is not None:
        os._exit(finished(child.run))


def finished(run) -> int:
    """The exit code `python -m` would end `run` with (SystemExit's, or 1 and the traceback), once what the
    interpreter runs at exit has run (non-daemon threads joined, atexit handlers, streams flushed) — but
    not the interpreter's teardown: freeing every object of the warm parent's heap wrote to each of its
    shared pages and took 60–100 ms of CPU at every actor's exit."""
    try:
        run()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else _said(exc.code)
    except BaseException:  # noqa: BLE001 - as the interpreter reports an uncaught exception
        traceback.print_exc()
        code = 1
    threading._shutdown()  # noqa: SLF001 - what Py_FinalizeEx runs first: non-daemon threads joined
    atexit._run_exitfuncs()  # noqa: SLF001 - then the atexit handlers
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    return code


def _said(message) -> int:
    print(message, file=sys.stderr)
    return 1


if __name__ == "__main__":
    main()
