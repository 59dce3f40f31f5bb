"""The replicated store's failover on a 3-node RabbitMQ cluster: CAS writers run throughout while each
fault is done `--trials` times — kill -9 of the active store, of its broker node, of the WAL
stream's leader node; the active store, or its broker node, frozen (SIGSTOP) until a write went
through elsewhere. Each trial's time from the fault to the first acknowledged write sent after it,
p50 and max per fault, and the whole history checked linearizable at the end.

    python -m bench.failover --trials 10 [--faults store-kill ... node-freeze] [--timeout 2] [--heartbeat 5]

A writer whose request goes unanswered gives up after `--timeout` seconds and sends the next, so
the figures are the outage to within that much (with the client's default 10 s a lost reply alone
would read as a 10 s outage).

Needs RabbitMQ's OS package: scripts/rabbit-cluster.sh starts three nodes of the run's own."""
from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

from bench.harness import Cluster, median, result_line
from runtime import logs
from runtime.client import Client
from testkit.failover import Stores, first_write_after, rabbit_script, restart_node, stream_leader, thaw_node, writes_after
from testkit.waiting import wait_until
from testkit.histories import KEYS, CasClient, register
from testkit.linearizability import linearizable

FAULTS = ("store-kill", "node-kill", "leader-kill", "store-freeze", "node-freeze")  # node: the active store's


class Run:
    """The cluster under test: replicated stores, an apiserver, CAS clients; how to do each fault."""

    def __init__(self, cluster: Cluster, script, timeout: float):
        self.cluster, self.script = cluster, script
        self.stores, self.detail = Stores(self._start_store), ""
        self.stores.start()
        cluster.start("actors.apiserver")
        self.stores.start()
        admin = Client(cluster.settings, name="setup")
        for key in KEYS:  # the cluster may still be coming up
            wait_until(lambda: admin.create(register(key), namespace="default"), 60, 0.2, what=f"register {key}")
        admin.close()
        self.clients = [CasClient(cluster.settings.with_(request_timeout_s=timeout), f"c{n}") for n in range(4)]
        for c in self.clients:
            c.start()

    def _start_store(self, n: int, env: dict):
        proc = self.cluster.start("store", **env, KUBUS_DATA_DIR=str(Path(self.cluster.dir.name) / f"store-{n}"))
        return proc, Path(self.cluster.dir.name) / f"store.{len(self.cluster.procs) - 1}.log"

    def trial(self, fault: str) -> float:
        self.stores.top_up()
        writes_after(self.clients, 20)
        self.detail = ""
        recover = getattr(self, fault.replace("-", "_"))()
        at = time.monotonic()  # the fault is in effect once its method returns (a node's kill -9 waits for it)
        self.detail += time.strftime(" at %H:%M:%S")  # to find the fault in the logs
        try:
            return first_write_after(self.clients, at)
        finally:
            recover()  # a trial that fails leaves no node frozen for the clean-up to hang on

    def store_kill(self):
        self.stores.active().kill()
        return self.stores.start

    def store_freeze(self):
        frozen = self.stores.active()
        os.kill(frozen.pid, signal.SIGSTOP)

        def thaw() -> None:
            os.kill(frozen.pid, signal.SIGCONT)
            frozen.wait(30)  # deposed: it exits without answering again
            self.stores.start()
        return thaw

    def node_kill(self):
        """The node the active store is connected to."""
        return self._kill_node(self.stores.active_node())

    def node_freeze(self):
        """The active store's node stopped (SIGSTOP) until a write went through elsewhere, then resumed."""
        node = self.stores.active_node()
        self.detail = f"node {node}"
        self.script("freeze", node)

        def thaw() -> None:
            self.detail += f" ({thaw_node(self.script, self.cluster.settings.cluster, node)})"
        return thaw

    def leader_kill(self):
        return self._kill_node(stream_leader(self.script, self.cluster.settings.cluster))

    def _kill_node(self, node: str):
        self.detail = f"node {node}"
        self.script("kill", node)
        return lambda: restart_node(self.script, self.cluster.settings.cluster, node)

    def history_ok(self) -> tuple[int, list]:
        for c in self.clients:
            c.stop.set()
        for c in self.clients:
            c.join(60)
        history = [op for c in self.clients for op in c.ops]
        return sum(1 for op in history if op.kind == "cas" and op.result is True), \
            linearizable(history, {k: "0" for k in KEYS})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--faults", nargs="+", choices=FAULTS, default=list(FAULTS))
    parser.add_argument("--timeout", type=float, default=2.0, help="the writers' request timeout, seconds")
    parser.add_argument("--heartbeat", default="5", help="KUBUS_HEARTBEAT_S of every process (what a frozen one takes)")
    args = parser.parse_args()
    logs.configure("warning")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped"))  # so the nodes and actors are stopped too
    with tempfile.TemporaryDirectory(prefix="kubus-rabbit-") as home:
        script = rabbit_script(Path(home))
        script("up")
        try:
            os.environ.update(KUBUS_ADMIN_URL=script("urls").strip(), KUBUS_QUEUE_TYPE="quorum",
                              KUBUS_HEARTBEAT_S=args.heartbeat)
            with Cluster("failover") as cluster:
                run = Run(cluster, script, args.timeout)
                times = {fault: [trial(run, fault, n, args.trials) for n in range(args.trials)] for fault in args.faults}
                writes, violations = run.history_ok()
        finally:
            script("down")
    print("| fault | trials | p50 s | max s |\n|---|---|---|---|")
    for fault, took in times.items():
        print(f"| {fault} | {len(took)} | {median(took):.2f} | {max(took):.2f} |")
    print(result_line(acknowledged_writes=writes, linearizable=not violations,
                      **{f"{f.replace('-', '_')}_p50_s": round(median(t), 2) for f, t in times.items()},
                      **{f"{f.replace('-', '_')}_max_s": round(max(t), 2) for f, t in times.items()}))
    if violations:
        sys.exit(f"the history is not linearizable: {violations[:3]}")


def trial(run: Run, fault: str, n: int, trials: int) -> float:
    took = run.trial(fault)
    print(f"{fault} trial {n + 1}/{trials}: {took:.2f} s {run.detail}", file=sys.stderr, flush=True)
    return took


if __name__ == "__main__":
    main()
