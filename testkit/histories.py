"""Clients that record what they did, for the linearizability checker: each reads a pod's label `v`
and compare-and-swaps it to a value of its own (an update with the resourceVersion it read)."""
from __future__ import annotations

import random
import threading
import time

from api.status import StatusError
from runtime.client import Client
from testkit.linearizability import Op

KEYS = ("reg-0", "reg-1", "reg-2")


def register(name: str) -> dict:
    """A pod only the CAS clients change: bound to a node no kubelet serves, so no scheduler binds it
    and no kubelet writes its status (a write by anyone else would break the register model)."""
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"v": "0"}},
            "spec": {"nodeName": "registers", "containers": [{"name": "c", "image": "busybox"}]}}


class CasClient(threading.Thread):
    """Reads and CAS-writes the registers until stopped; `ops` is its history, `acked` its successful
    writes: (sent, acknowledged) times."""

    def __init__(self, settings, name: str):
        super().__init__(daemon=True)
        self.name, self.client = name, Client(settings, name=f"cas {name}")
        self.ops: list[Op] = []
        self.acked: list[tuple[float, float]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        i = 0
        while not self.stop.is_set():
            key = random.choice(KEYS)
            seen = self._read(key)
            if seen is not None:
                self._cas(key, seen, f"{self.name}-{i}")
            i += 1
        self.client.close()

    def _read(self, key: str) -> dict | None:
        call = time.monotonic()
        try:
            obj = self.client.get("Pod", key, "default")
        except Exception:  # noqa: BLE001 - a read that failed changed nothing: not part of the history
            return None
        self.ops.append(Op(self.name, call, time.monotonic(), "read", key, result=obj["metadata"]["labels"]["v"]))
        return obj

    def _cas(self, key: str, seen: dict, value: str) -> None:
        expect = seen["metadata"]["labels"]["v"]
        new = {**seen, "metadata": {**seen["metadata"], "labels": {"v": value}}}
        call = time.monotonic()
        try:
            self.client.update(new)
        except StatusError as exc:
            done = time.monotonic()
            if exc.reason == "Conflict":
                self.ops.append(Op(self.name, call, done, "cas", key, expect, value, False))
            else:
                self.ops.append(Op.unknown(self.name, call, key, expect, value))
            return
        except Exception:  # noqa: BLE001 - a timeout: it may or may not have happened
            self.ops.append(Op.unknown(self.name, call, key, expect, value))
            return
        done = time.monotonic()
        self.ops.append(Op(self.name, call, done, "cas", key, expect, value, True))
        self.acked.append((call, done))
