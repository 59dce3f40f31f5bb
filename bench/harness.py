"""What every benchmark needs: a fresh cluster name, actor processes, progress, and the result line."""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cli.bootstrap import actor_account_url, bootstrap, remove_accounts  # noqa: E402
from config.credentials import AS_ITS_CALLERS  # noqa: E402
from config.settings import Settings  # noqa: E402
from bus.testkit import delete_topology  # noqa: E402  (also removes the run's actor queues)
from runtime import heap, spawn  # noqa: E402
from testkit.people import as_person, write_users_file  # noqa: E402


class Cluster:
    """Actor processes under a fresh cluster name and data directory; stopped and removed on exit."""

    def __init__(self, prefix: str, **settings):
        heap.configure()  # the load generator's clients collect as the actors do
        self.dir = tempfile.TemporaryDirectory(prefix=f"kubus-{prefix}-")
        home = Path(self.dir.name)
        admin = Settings().admin_url
        self.base = Settings(cluster=f"{prefix}{uuid.uuid4().hex[:8]}", data_dir=home / "data", amqp_url=admin,
                             admin_url=admin, secrets_dir=home / "secrets",
                             users_file=write_users_file(home / "users.yaml"), **settings)
        bootstrap(self.base, None, [])
        self.settings = as_person(self.base, "admin")  # the load generators are a person in system:masters
        self.env = {**os.environ, "KUBUS_CLUSTER": self.settings.cluster, "KUBUS_AMQP_URL": self.settings.amqp_url,
                    "KUBUS_DATA_DIR": str(self.settings.data_dir), "KUBUS_LOG_LEVEL": "warning",
                    "KUBUS_SECRETS_DIR": str(self.base.secrets_dir), "KUBUS_USERS_FILE": str(self.base.users_file),
                    "KUBUS_ADMIN_URL": admin, "PYTHONUNBUFFERED": "1"}
        self.procs: list[spawn.Process] = []

    def start(self, module: str, *args: str, **env: str) -> spawn.Process:
        """`python -m module args`, forked warm, as its own broker user (its log in the run's directory)."""
        own = module not in AS_ITS_CALLERS  # a gateway has no broker user: it talks as each caller
        env = {**self.env, **({"KUBUS_AMQP_URL": actor_account_url(self.base, module, args)} if own else {}), **env}
        with open(self.log_of(module, len(self.procs)), "w") as log:
            proc = spawn.start(module, *args, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        self.procs.append(proc)
        return proc

    def log_of(self, module: str, index: int) -> Path:
        return Path(self.dir.name) / f"{module}.{index}.log"

    def __enter__(self) -> "Cluster":
        return self

    def stop(self) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()

    def __exit__(self, *exc) -> None:
        self.stop()
        delete_topology(self.base.admin_url, self.settings.cluster)
        remove_accounts(self.base)
        self.dir.cleanup()


def progress(label: str, done: int, total: int, started: float) -> None:
    """One status line, rewritten in place on a terminal, at most every 10% otherwise."""
    rate = done / max(time.monotonic() - started, 1e-9)
    line = f"{label}: {done}/{total} ({rate:,.0f}/s)"
    if sys.stderr.isatty():
        sys.stderr.write("\r" + line + ("\n" if done >= total else ""))
    elif done and total and (done * 10 // total) != ((done - 1) * 10 // total):
        sys.stderr.write(line + "\n")
    sys.stderr.flush()


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.05)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def broker_pid() -> int | None:
    """The local RabbitMQ's Erlang VM, when it runs on this machine (its CPU counts as the broker's)."""
    found = subprocess.run(["pgrep", "-o", "beam.smp"], capture_output=True, text=True).stdout.split()
    return int(found[0]) if found else None


class CpuMeter:
    """CPU milliseconds each named process (or group of processes) spends between start() and the
    per-unit reading."""

    def __init__(self, pids: dict[str, int | list[int] | None]):
        self.pids = {name: pid if isinstance(pid, list) else [pid] for name, pid in pids.items() if pid}
        self.start()

    def start(self) -> None:
        self.base = {name: self._seconds(name) for name in self.pids}

    def used(self) -> dict[str, float]:
        """CPU seconds of each name since start()."""
        return {name: self._seconds(name) - self.base[name] for name in self.pids}

    def per(self, units: int, suffix: str) -> dict[str, float]:
        return {f"{name}_cpu_ms_per_{suffix}": seconds * 1000 / units for name, seconds in self.used().items()}

    def _seconds(self, name: str) -> float:
        return sum(cpu_seconds(pid) for pid in self.pids[name])


def median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0


def result_line(**pairs) -> str:
    return " ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in pairs.items())


def serving(client) -> bool:
    """True once a read goes through apiserver and store."""
    try:
        return bool(client.list("Namespace").items)
    except Exception:
        return False
