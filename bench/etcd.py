"""The same CAS workload against a local etcd (Debian's etcd-server), over its v3 JSON gateway."""
from __future__ import annotations

import base64
import http.client
import json
import shutil
import subprocess
import tempfile
import threading
import time

from testkit.hosts import free_port
from bench.harness import progress, wait_for


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


class Etcd:
    def __init__(self):
        binary = shutil.which("etcd")
        if binary is None:
            raise SystemExit("etcd is not installed: apt-get install etcd-server (needed for --vs-etcd)")
        self.dir = tempfile.TemporaryDirectory(prefix="kubus-etcd-")
        self.port, peer = free_port(), free_port()
        url, peer_url = f"http://127.0.0.1:{self.port}", f"http://127.0.0.1:{peer}"
        self.proc = subprocess.Popen(
            [binary, "--data-dir", self.dir.name, "--listen-client-urls", url, "--advertise-client-urls", url,
             "--listen-peer-urls", peer_url, "--initial-advertise-peer-urls", peer_url,
             "--initial-cluster", f"default={peer_url}", "--log-level", "error"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(self._healthy, 30, "etcd to start")

    def _healthy(self) -> bool:
        try:
            self.call(http.client.HTTPConnection("127.0.0.1", self.port, timeout=2), "/v3/kv/range",
                      {"key": _b64("health")})
            return True
        except OSError:
            return False

    @staticmethod
    def call(conn: http.client.HTTPConnection, path: str, body: dict) -> dict:
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        return json.loads(conn.getresponse().read())

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        self.dir.cleanup()


class _Watcher(threading.Thread):
    """Counts PUT events under the prefix from one streaming /v3/watch."""

    def __init__(self, etcd: Etcd, prefix: str, start_revision: int):
        super().__init__(daemon=True)
        self.etcd, self.prefix, self.start_revision = etcd, prefix, start_revision
        self.count = 0
        self.last_at = 0.0
        self.ready = threading.Event()

    def run(self) -> None:
        conn = self.etcd.connection()
        body = {"create_request": {"key": _b64(self.prefix), "range_end": _b64(self.prefix[:-1] + chr(ord(self.prefix[-1]) + 1)),
                                   "start_revision": self.start_revision}}
        conn.request("POST", "/v3/watch", json.dumps(body))
        resp = conn.getresponse()
        for line in resp:
            msg = json.loads(line).get("result", {})
            if msg.get("created"):
                self.ready.set()
            events = msg.get("events") or []
            if events:
                self.count += len(events)
                self.last_at = time.monotonic()


class EtcdLoad:
    """`clients` keys on a running etcd, each updated by CAS from a thread of its own, one write in
    flight per key; a round's clock stops when the watcher has seen every write of the round."""

    def __init__(self, clients: int, payload: dict):
        self.clients, self.payload = clients, payload
        self.etcd = Etcd()
        conn = self.etcd.connection()
        self.revs = {}
        for i in range(clients):
            reply = self.etcd.call(conn, "/v3/kv/put", {"key": _b64(f"bench/{i}"), "value": _b64(json.dumps(payload))})
            self.revs[i] = int(reply["header"]["revision"])
        self.watcher = _Watcher(self.etcd, "bench/", max(self.revs.values()) + 1)
        self.watcher.start()
        self.watcher.ready.wait(10)

    def round(self, writes: int) -> float:
        """Writes per second of `writes` CAS updates (rounded down to a multiple of the clients)."""
        per = writes // self.clients
        total, seen = per * self.clients, self.watcher.count
        started = time.monotonic()
        threads = [threading.Thread(target=self._cas_loop, args=(i, per), daemon=True) for i in range(self.clients)]
        for t in threads:
            t.start()
        wait_for(lambda: progress("etcd", self.watcher.count - seen, total, started)
                 or self.watcher.count - seen >= total, 600, "etcd's watcher")
        for t in threads:
            t.join()
        return total / (self.watcher.last_at - started)

    def _cas_loop(self, i: int, count: int) -> None:
        conn, key, rev = self.etcd.connection(), _b64(f"bench/{i}"), self.revs[i]
        for n in range(count):
            value = _b64(json.dumps({**self.payload, "n": n}))
            reply = self.etcd.call(conn, "/v3/kv/txn", {
                "compare": [{"key": key, "result": "EQUAL", "target": "MOD", "mod_revision": str(rev)}],
                "success": [{"request_put": {"key": key, "value": value}}]})
            if not reply.get("succeeded"):
                raise SystemExit(f"etcd CAS failed for key {i}: {reply}")
            rev = int(reply["header"]["revision"])
        self.revs[i] = rev

    def close(self) -> None:
        self.etcd.close()
