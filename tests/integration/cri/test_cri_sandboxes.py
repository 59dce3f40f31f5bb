"""A pod's sandbox that dies (its pause process killed) is a changed sandbox, as the kubelet's
computePodActions has it: the pod's containers are killed, a new sandbox is made (attempt + 1) and the
containers start again in it by restartPolicy; a `Never` pod whose containers ran is not restarted. One
cri cluster for the module: each test kills only its own pod's sandbox."""
from __future__ import annotations

import os
import signal

import pytest

from actors.kubelet.cri import specs
from actors.kubelet.cri.client import RuntimeClient
from actors.kubelet.cri.containerd import Layout
from tests.integration.cri.test_cri_pods import container, pod, state, status
from testkit.waiting import wait_until

STEADY = "trap 'exit 0' TERM; sleep 1000 & wait"


def runtime(settings) -> RuntimeClient:
    return RuntimeClient(str(Layout((settings.data_dir / "kubelet" / "node-1" / "cri").resolve()).socket))


def sandboxes(client: RuntimeClient, uid: str) -> list:
    return sorted(client.sandboxes(labels={specs.POD_UID: uid}), key=lambda s: s.metadata.attempt)


def kill_pause(client: RuntimeClient, uid: str) -> str:
    """SIGKILL the pause process of the pod's ready sandbox (its PID as containerd reports it); its id."""
    ready = [s for s in sandboxes(client, uid) if s.state == 0]
    assert len(ready) == 1, ready
    os.kill(client.sandbox_info(ready[0].id)["pid"], signal.SIGKILL)
    return ready[0].id


@pytest.fixture
def node(cri_module):
    """The module's cri cluster's client."""
    return cri_module.client


def test_a_dead_sandbox_is_made_again_and_its_containers_restarted(node, cri_module):
    node.create(pod("phoenix", STEADY, policy="Always"))
    wait_until(lambda: state(node, "phoenix", "running"), 60, what="phoenix running")
    uid, before = node.get("Pod", "phoenix")["metadata"]["uid"], container(node, "phoenix")
    client = runtime(cri_module.settings)
    try:
        old = kill_pause(client, uid)
        again = wait_until(lambda: container(node, "phoenix").get("restartCount") == 1
                           and state(node, "phoenix", "running") and container(node, "phoenix"),
                           60, what="phoenix running again, restarted once")
        found = sandboxes(client, uid)
    finally:
        client.close()
    assert [(s.metadata.attempt, s.state) for s in found] == [(0, 1), (1, 0)], found
    assert found[0].id == old and again["containerID"] != before["containerID"]
    assert again["lastState"]["terminated"]["exitCode"] == 137, again
    assert status(node, "phoenix")["podIP"], status(node, "phoenix")


def test_a_never_pod_whose_container_ran_is_not_made_again(node, cri_module):
    node.create(pod("once", STEADY, policy="Never"))
    wait_until(lambda: state(node, "once", "running"), 60, what="once running")
    uid = node.get("Pod", "once")["metadata"]["uid"]
    client = runtime(cri_module.settings)
    try:
        kill_pause(client, uid)
        done = wait_until(lambda: state(node, "once", "terminated"), 60, what="once killed with its sandbox")
        wait_until(lambda: status(node, "once").get("phase") == "Failed", 30, what="once Failed")
        found = sandboxes(client, uid)
    finally:
        client.close()
    assert done["exitCode"] == 137 and container(node, "once")["restartCount"] == 0, done
    assert [s.metadata.attempt for s in found] == [0], found
