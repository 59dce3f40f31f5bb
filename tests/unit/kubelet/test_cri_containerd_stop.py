"""A killed containerd counts as stopped once it is a zombie: its kubelet gone, it belongs to init,
which reaps it ~1.5 s later on this machine kind — a teardown waited that long for every cri node."""
from __future__ import annotations

import os
import signal
import subprocess

from actors.kubelet.pids import running
from testkit.waiting import wait_until


def test_a_zombie_is_not_running_and_a_live_process_is():
    child = subprocess.Popen(["sleep", "30"])
    try:
        assert running(child.pid)
        os.kill(child.pid, signal.SIGKILL)
        wait_until(lambda: open(f"/proc/{child.pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z",
                   10, 0.01, what="the child to be a zombie")  # not reaped: we have not waited for it
        assert not running(child.pid)
    finally:
        child.kill()
        child.wait()
    assert not running(child.pid)  # reaped: no such process
