"""`kubus up`: every actor of a cluster file as its own OS process (forked from the warm parent,
`runtime.spawn`), logs prefixed, crashed ones restarted — the first time at once, then with
backoff — all stopped together on Ctrl-C or SIGTERM."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import IO

from config import urls
from config.cluster import ActorSpec, HostSpec, NodeSpec, load_cluster
from config.credentials import AS_ITS_CALLERS, actor_url, read_secret, role_of_actor
from config.settings import Settings
from runtime import spawn

BACKOFF_START_S = 1.0  # the second restart in a row waits this long; the first is at once (a warm start)
BACKOFF_MAX_S = 30.0
HEALTHY_AFTER_S = 60.0
STOP_GRACE_S = 10.0
TICK_S = 0.1  # how soon a crash is seen (a poll is a lookup: the fork server reports exits)


@dataclass
class Child:
    label: str
    argv: list[str]  # module, args
    env: dict[str, str]
    proc: spawn.Process | subprocess.Popen | None = None
    started: float = 0.0
    backoff: float = 0.0
    restart_at: float = 0.0
    restarts: int = 0
    threads: list[threading.Thread] = field(default_factory=list)


class Supervisor:
    def __init__(self, actors: list[ActorSpec], env: dict[str, str], out: IO[str] = sys.stdout):
        self.out = out
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.children = [
            Child(f"{a.name}-{i + 1}" if a.instances > 1 else a.name,
                  [a.module, *a.args], {**env, **a.env})
            for a in actors for i in range(a.instances)
        ]
        self._metrics_ports(int(env.get("KUBUS_METRICS_PORT") or 0))

    def _metrics_ports(self, first: int) -> None:
        """With KUBUS_METRICS_PORT set, each child serves its metrics on a port of its own, from it up."""
        if not first:
            return
        for i, child in enumerate(self.children):
            child.env = {**child.env, "KUBUS_METRICS_PORT": str(first + i)}
            self.say("kubus", f"metrics of {child.label}: http://127.0.0.1:{first + i}/metrics")

    def say(self, label: str, line: str) -> None:
        with self.lock:
            self.out.write(f"[{label}] {line.rstrip()}\n")
            self.out.flush()

    def start(self, child: Child) -> None:
        read, write = os.pipe()
        try:
            child.proc = spawn.start(*child.argv, env=child.env, stdout=write, stderr=subprocess.STDOUT)
        finally:
            os.close(write)
        child.started = time.monotonic()
        thread = threading.Thread(target=self._pump, args=(child, read), daemon=True)
        thread.start()
        self.say("kubus", f"started {child.label} (pid {child.proc.pid})")

    def _pump(self, child: Child, read: int) -> None:
        with open(read, encoding="utf-8", errors="backslashreplace") as lines:
            for line in lines:
                self.say(child.label, line)

    def check(self, child: Child, now: float) -> None:
        """Restart a child that exited, after its backoff; a long healthy run resets the backoff."""
        if child.proc is None:
            if now >= child.restart_at:
                self.start(child)
            return
        code = child.proc.poll()
        if code is None:
            if now - child.started > HEALTHY_AFTER_S:
                child.backoff = 0.0
            return
        child.proc = None
        child.restarts += 1
        child.restart_at = now + child.backoff
        self.say("kubus", f"{child.label} exited with {code}; restarting in {child.backoff:.0f}s "
                          f"(restart {child.restarts})")
        child.backoff = min(max(child.backoff * 2, BACKOFF_START_S), BACKOFF_MAX_S)

    def run(self) -> int:
        for child in self.children:
            self.start(child)
        while not self.stopping.wait(TICK_S):
            now = time.monotonic()
            for child in self.children:
                self.check(child, now)
        return self.shutdown()

    def shutdown(self) -> int:
        running = [c.proc for c in self.children if c.proc and c.proc.poll() is None]
        self.say("kubus", f"stopping {len(running)} actors")
        for proc in running:
            _signal(proc, signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        for proc in running:
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _signal(proc, signal.SIGKILL)
                proc.wait()
        return 0


def _signal(proc: spawn.Process | subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass


def kubelets(nodes: list[NodeSpec]) -> list[ActorSpec]:
    """A kubelet process per node of the cluster file."""
    return [ActorSpec(name=f"kubelet-{n.name}", module="actors.kubelet", host=n.host,
                      args=["--node-json", n.model_dump_json(exclude={"host"})]) for n in nodes]


def placed(actor: ActorSpec, hosts: dict[str, HostSpec], env: dict[str, str]) -> ActorSpec:
    """An actor on a host: its broker node first in its URL list, the host's environment under its own."""
    if actor.host is None:
        return actor
    host = hosts[actor.host]
    url = actor.env.get("KUBUS_AMQP_URL") or env.get("KUBUS_AMQP_URL") or Settings().amqp_url
    return actor.model_copy(update={"env": {**host.env, **actor.env, "KUBUS_AMQP_URL": urls.prefer(url, host.broker)}})


def with_credentials(actor: ActorSpec, env: dict[str, str]) -> ActorSpec:
    """The actor connects as its own broker user (contract 5), its password derived from the
    cluster's secret, which `kubus bootstrap` made."""
    if actor.module in AS_ITS_CALLERS:
        return actor
    settings = Settings()
    settings = settings.with_(cluster=env.get("KUBUS_CLUSTER", settings.cluster))
    url = actor_url(settings, read_secret(settings), *role_of_actor(actor.module, actor.args))
    return actor.model_copy(update={"env": {"KUBUS_AMQP_URL": url, **actor.env}})


def run_cluster(path: str | None = None) -> int:
    spec = load_cluster(path)
    env = dict(os.environ)
    if spec.cluster and "KUBUS_CLUSTER" not in env:
        env["KUBUS_CLUSTER"] = spec.cluster
    env.setdefault("PYTHONUNBUFFERED", "1")
    actors = [placed(with_credentials(a, env), spec.hosts, env) for a in spec.actors + kubelets(spec.nodes)]
    sup = Supervisor(actors, env)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: sup.stopping.set())
    return sup.run()
