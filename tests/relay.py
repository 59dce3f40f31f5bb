"""A TCP relay in front of the test broker that can go silent, as a frozen broker node does."""
from __future__ import annotations

import selectors
import socket
import threading
import time


class Relay(threading.Thread):
    """Accepts connections and passes bytes both ways to `target` until `freeze()`; then holds the
    sockets open and passes nothing, as a stopped process's kernel does. `hold_requests()` stops only
    what clients send (the broker's heartbeats still arrive). `attempts` counts the connections made
    to it."""

    def __init__(self, target: tuple[str, int]):
        super().__init__(daemon=True)
        self.target, self.frozen, self.done = target, threading.Event(), threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = [self.listener]
        self.clients: set[socket.socket] = set()
        self.attempts = 0
        self.requests_held = threading.Event()

    def freeze(self) -> None:
        self.frozen.set()

    def hold_requests(self) -> None:
        self.requests_held.set()

    def _passes(self, sock: socket.socket) -> bool:
        return not self.frozen.is_set() and not (self.requests_held.is_set() and sock in self.clients)

    def close(self) -> None:
        self.done.set()
        self.join(5)
        for s in self.sockets:
            s.close()

    def run(self) -> None:
        sel = selectors.DefaultSelector()
        sel.register(self.listener, selectors.EVENT_READ)
        while not self.done.is_set():
            idle = self.frozen.is_set()
            for key, _ in sel.select(0.05):
                if key.fileobj is self.listener:
                    client, _ = self.listener.accept()
                    self.attempts += 1
                    self.sockets.append(client)
                    if self.frozen.is_set():
                        continue
                    upstream = socket.create_connection(self.target)
                    self.sockets.append(upstream)
                    self.clients.add(client)
                    sel.register(client, selectors.EVENT_READ, upstream)
                    sel.register(upstream, selectors.EVENT_READ, client)
                elif self._passes(key.fileobj):
                    data = key.fileobj.recv(65536)
                    if data:
                        key.data.sendall(data)
                else:
                    idle = True
            if idle:
                time.sleep(0.05)
