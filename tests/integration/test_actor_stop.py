"""SIGTERM stops an actor promptly: the signal handler hands the drain to the ioloop, which must wake
for it rather than sleep out its next timer (a controller's loop sleeps up to 5 s)."""
from __future__ import annotations

import signal
import subprocess

import pytest

from testkit.waiting import wait_until


@pytest.mark.parametrize("module", ["actors.controllers replicaset", "actors.apiserver", "store"])
def test_an_actor_stops_within_seconds_of_sigterm(cluster, procs, settings, module):
    proc = next((p for p in procs.procs if module in p.args), None) or procs.start(*module.split())
    log = procs.logdir / f"{module.split()[0].rsplit('.', 1)[-1]}-{procs.procs.index(proc)}.log"
    wait_until(lambda: "informer.synced" in log.read_text() or "store.active" in log.read_text(), 15,
               what=f"{module} to serve")
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(3)  # draining an idle actor takes milliseconds
    except subprocess.TimeoutExpired:
        pytest.fail(f"{module} still running 3 s after SIGTERM")
    assert code == 0
