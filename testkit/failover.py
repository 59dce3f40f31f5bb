"""What the replicated store's fault test and its failover benchmark share: the 3-node RabbitMQ
cluster's script, the store processes and which of them serves, the WAL stream's leader and
replicas, and the time from a fault to the first acknowledged write."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Callable

from bus.topology import Names
from runtime.spawn import ROOT
from testkit.waiting import wait_until

SCRIPT = str(ROOT / "scripts" / "rabbit-cluster.sh")
REPLICATED = {"KUBUS_STORE_REPLICATION": "stream", "KUBUS_WAL_SEGMENT_BYTES": str(1 << 20), "KUBUS_LOG_LEVEL": "info"}


def rabbit_script(directory: Path) -> Callable[..., str]:
    """scripts/rabbit-cluster.sh with its nodes' data under `directory`: `up`, `urls`, `kill 1` …"""
    env = {**os.environ, "KUBUS_RABBIT_CLUSTER_DIR": str(directory)}

    def script(*args: str) -> str:
        done = subprocess.run([SCRIPT, *args], env=env, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr
        return done.stdout
    return script


class Stores:
    """Replicated store processes, each with its own database; which one serves. `start(n, env)`
    starts store number n with that environment and returns the process and its log's path."""

    def __init__(self, start: Callable[[int, dict], tuple[subprocess.Popen, Path]]):
        self._start, self.started = start, []

    def start(self) -> None:
        self.started.append(self._start(len(self.started), REPLICATED))

    def top_up(self, count: int = 2) -> None:
        """Start stores until `count` live, as a supervisor would after one exited (a deposed store exits)."""
        for _ in range(count - sum(1 for proc, _log in self.started if proc.poll() is None)):
            self.start()

    def active(self) -> subprocess.Popen:
        """The live store whose log last says it serves (a store steps down when its connection goes)."""
        def serving(log: Path) -> bool:
            text = log.read_text()
            return text.rfind('"store.active"') > text.rfind('"store.stepped_down"')
        found = [p for p, log in self.started if p.poll() is None and serving(log)]
        assert len(found) == 1, f"{len(found)} stores serve"
        return found[0]

    def active_node(self) -> str:
        """The number of the node (1, 2, 3) the serving store took over on, as its log says: where it
        takes commands and appends to the WAL (its reply connection and a standby may be elsewhere)."""
        text = next(log for proc, log in self.started if proc is self.active()).read_text()
        at = text.rfind('"store.active"')
        line = text[text.rfind("\n", 0, at) + 1:].split("\n", 1)[0]
        return json.loads(line)["node"].split("/", 1)[0][-1]  # "127.0.0.1:5702/": node 2


def first_write_after(clients: list, fault_at: float) -> float:
    """Seconds from the fault to the acknowledgement of the first write sent after it."""
    wait_until(lambda: any(sent > fault_at for c in clients for sent, _ in c.acked), 90,
               what="a write sent after the fault to be acknowledged")
    return min(done for c in clients for sent, done in c.acked if sent > fault_at) - fault_at


def ctl_any(script: Callable[..., str], *args: str) -> str:
    """rabbitmqctl on the first node that answers (a thawed node may be paused a while: pause_minority)."""
    for node in ("1", "2", "3"):
        try:
            return script("ctl", node, *args)
        except (AssertionError, subprocess.TimeoutExpired):
            continue
    raise AssertionError(f"no node answers rabbitmqctl {' '.join(args)}")


def stream_leader(script: Callable[..., str], cluster: str) -> str:
    rows = ctl_any(script, "list_queues", "name", "leader").splitlines()
    leader = next(line.split()[1] for line in rows if line.startswith(Names(cluster).store_wal))
    return leader.removeprefix("kubus").split("@")[0]


def wal_replicated(script: Callable[..., str], cluster: str, on: str) -> bool:
    """Every node has a running replica of the WAL stream (a restarted node's catches up first)."""
    try:
        status = script("streams", on, "stream_status", Names(cluster).store_wal)
    except AssertionError:
        return False
    return sum(1 for line in status.splitlines() if " kubus" in f" {line}" and "@localhost" in line) == 3


def thaw_node(script: Callable[..., str], cluster: str, node: str) -> str:
    """Resume a frozen node, heal the partition it may leave recorded (pause_minority heals only a node
    that paused itself: scale-out.md §1.7), and wait until it serves the WAL again; what heal did."""
    script("thaw", node)
    healed = script("heal", node).strip()
    _serving_again(script, cluster, node)
    return healed


def restart_node(script: Callable[..., str], cluster: str, node: str) -> None:
    """Start a killed node again, and wait until it serves the WAL again."""
    script("start", node)
    _serving_again(script, cluster, node)


def _serving_again(script: Callable[..., str], cluster: str, node: str) -> None:
    """Wait until the node runs RabbitMQ again and the WAL stream has its replica back."""
    script("ctl", node, "await_startup", "--timeout", "90")
    other = next(n for n in ("1", "2", "3") if n != node)
    wait_until(lambda: wal_replicated(script, cluster, other), 90, what="the WAL on every node")
    wait_until(lambda: coordinator_ready(script), 90, what="the stream coordinator on every node")


def coordinator_ready(script: Callable[..., str]) -> bool:
    """Every node's member of the stream coordinator (a Raft cluster of its own) knows one leader."""
    leaders = set()
    for node in ("1", "2", "3"):
        try:
            said = script("ctl", node, "eval", "ra:members({rabbit_stream_coordinator, node()}).").strip()
        except AssertionError:
            return False
        if not said.startswith("{ok,"):
            return False
        leaders.add(said.rsplit(",", 1)[-1])
    return len(leaders) == 1


def writes_after(clients: list, count: int) -> int:
    """Wait until `count` more writes than now are acknowledged; the new total."""
    goal = sum(len(c.acked) for c in clients) + count
    wait_until(lambda: sum(len(c.acked) for c in clients) >= goal, 90, what=f"{count} more writes")
    return goal
