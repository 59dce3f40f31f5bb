"""`kubus up`: every actor its own process, a crashed one restarted, all stopped on SIGTERM."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading

import yaml

from cli.bootstrap import bootstrap
from config.cluster import load_cluster
from runtime.client import Client
from tests.conftest import wait_serving
from runtime.spawn import ROOT
from bus.testkit import delete_topology
from testkit.waiting import wait_until
from tests.integration.test_crud import pod


class Output(threading.Thread):
    def __init__(self, proc: subprocess.Popen):
        super().__init__(daemon=True)
        self.proc, self.lines = proc, []
        self.start()

    def run(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line.rstrip())

    def pids(self, label: str) -> list[int]:
        return [int(m.group(1)) for line in self.lines
                if (m := re.match(rf"\[kubus\] started {label} \(pid (\d+)\)", line))]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def test_up_restarts_a_crashed_actor_and_stops_all(settings, tmp_path):
    spec = {"actors": [{"name": "store", "module": "store"}, {"name": "apiserver", "module": "actors.apiserver"}]}
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump(spec))
    bootstrap(settings, load_cluster(path), [])  # `kubus bootstrap -f`: the file's actors get their broker users
    env = {**os.environ, "KUBUS_AMQP_URL": settings.amqp_url, "KUBUS_CLUSTER": settings.cluster,
           "KUBUS_DATA_DIR": str(settings.data_dir), "KUBUS_SECRETS_DIR": str(settings.secrets_dir),
           "KUBUS_USERS_FILE": str(settings.users_file)}  # each actor its own broker user, from the secret
    up = subprocess.Popen([sys.executable, "-m", "cli.main", "up", "-f", str(path)], cwd=ROOT, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = Output(up)
    client = Client(settings, name="e2e")
    try:
        wait_serving(client)
        first = wait_until(lambda: out.pids("store"), what="the store to start")[0]
        api = out.pids("apiserver")[0]
        os.kill(first, signal.SIGKILL)
        wait_until(lambda: len(out.pids("store")) == 2, 30, what="the store to be restarted")
        assert any("store exited with -9; restarting" in line for line in out.lines)
        assert client.create(pod("after-restart"))["metadata"]["name"] == "after-restart"
        assert any(line.startswith("[store]") for line in out.lines)  # prefixed logs
        up.send_signal(signal.SIGTERM)
        assert up.wait(30) == 0
        assert not _alive(out.pids("store")[-1]) and not _alive(api)
    finally:
        client.close()
        if up.poll() is None:
            up.kill()
        delete_topology(settings.admin_url, settings.cluster)
