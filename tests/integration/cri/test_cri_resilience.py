"""A node's containerd killed (SIGKILL) while a pod runs: the kubelet's watchdog starts a new one,
the container runs on under its shim (same container id, no restart), and a new pod still starts;
with the kubelet stopped, `make down`'s teardown takes the pods, the containerd and its folders away."""
from __future__ import annotations

import os
import signal

from actors.kubelet.cri.containerd import Containerd
from actors.kubelet.cri.teardown import teardown
from tests.integration.cri.test_cri_pods import container, pod, state
from testkit.waiting import wait_until


def test_a_killed_containerd_is_started_again_and_its_pods_run_on(cri_cluster, settings, procs):
    cri_cluster.create(pod("steady", "trap 'exit 0' TERM; sleep 1000 & wait", policy="Always"))
    wait_until(lambda: state(cri_cluster, "steady", "running"), 60, what="steady running")
    before = container(cri_cluster, "steady")["containerID"]
    daemon = Containerd(settings.data_dir / "kubelet" / "node-1" / "cri", "", "")
    killed = daemon.pid()
    os.kill(killed, signal.SIGKILL)
    wait_until(lambda: daemon.pid() not in (None, killed) and daemon.answering(), 30,
               what="the kubelet to start a new containerd")
    cri_cluster.create(pod("fresh", "trap 'exit 0' TERM; sleep 1000 & wait", policy="Always"))
    wait_until(lambda: state(cri_cluster, "fresh", "running"), 60, what="a new pod running")
    after = container(cri_cluster, "steady")
    assert (after["containerID"], after["restartCount"], "running" in after["state"]) == (before, 0, True), after
    procs.kubelet.terminate()  # its containers outlive it: the teardown's to remove
    assert procs.kubelet.wait(10) == 0
    gone = teardown(daemon.layout.home)
    assert {"pod default/steady", "pod default/fresh", f"containerd of {daemon.layout.home}"} <= set(gone), gone
    assert daemon.pid() is None and not daemon.layout.home.exists()


def test_a_kubelet_stopped_while_a_container_stops_exits_at_once(cri_cluster, procs):
    """A stop in flight waits out the pod's grace period (30 s for a process that ignores TERM, as
    `sleep` does as its namespace's pid 1): the kubelet told to stop meanwhile leaves it to the next
    one (containers outlive a kubelet) and exits at once. It waited for the stop, past its stopper's
    own patience (`kubus down`'s and the tests' 10 s), and was killed."""
    cri_cluster.create(pod("stubborn", "sleep 3600"))
    wait_until(lambda: state(cri_cluster, "stubborn", "running"), 60, what="stubborn to run")
    cri_cluster.delete("Pod", "stubborn")
    log = next(procs.logdir.glob("kubelet-*.log"))
    wait_until(lambda: '"kubelet.container_stopping"' in log.read_text(), 30, what="the kubelet to stop it")
    procs.kubelet.terminate()
    assert procs.kubelet.wait(5) == 0
