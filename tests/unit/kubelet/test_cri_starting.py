"""The cri runtime reports a container running only once StartContainer has returned: between
CreateContainer and StartContainer it has an id but no process and no cgroups (a full run under load
read its cgroup in that gap and found none). Proved with a CRI client whose StartContainer waits."""
from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from actors.kubelet.cri.api import cri_pb2 as pb
from actors.kubelet.runtimes.cri import CRIRuntime
from testkit.waiting import wait_until

POD = {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "burner", "namespace": "default", "uid": "0b6c1d4e-1111-2222-3333-444455556666"},
       "spec": {"nodeName": "node-1", "containers": [{"name": "main", "image": "busybox:1.35"}]}}


class HeldStart:
    """A CRI client with one pod's worth of answers; StartContainer waits until `release` is set."""

    def __init__(self):
        self.created, self.entered, self.release = [], threading.Event(), threading.Event()

    def version(self):
        return SimpleNamespace(runtime_version="fake")

    def sandboxes(self, labels=None):
        return []

    def run_sandbox(self, config: dict) -> str:
        return "sandbox-1"

    def sandbox_status(self, sandbox_id: str):
        return SimpleNamespace(network=SimpleNamespace(ip="10.244.0.5"))

    def image(self, reference: str) -> pb.Image:
        return pb.Image(id="sha256:" + "b" * 64)

    def create_container(self, sandbox_id: str, config: dict, sandbox_config: dict) -> str:
        self.created.append("c" * 64)
        return self.created[-1]

    def start_container(self, container_id: str) -> None:
        self.entered.set()
        assert self.release.wait(20), "the test never let StartContainer return"

    def containers(self, labels=None, sandbox_id=""):
        state = pb.CONTAINER_RUNNING if self.release.is_set() else pb.CONTAINER_CREATED
        return [pb.Container(id=c, state=state) for c in self.created]


@pytest.fixture
def held(tmp_path):
    client = HeldStart()
    runtime = CRIRuntime(client, "node-1", tmp_path, 1 << 30, lambda pod: None)
    yield client, runtime
    client.release.set()
    runtime.bringing.shutdown(wait=True)


def test_a_created_container_is_starting_until_start_container_returns(held):
    client, runtime = held
    cid = runtime.start(POD, POD["spec"]["containers"][0], 0, {})
    assert client.entered.wait(20), "StartContainer was never called"
    assert runtime.container_ref(cid) == f"containerd://{client.created[0]}"  # created: it has its id
    assert runtime.starting(cid)  # ... but no process yet: waiting, ContainerCreating
    assert runtime.poll(cid) is None  # and not taken for exited either
    client.release.set()
    wait_until(lambda: not runtime.starting(cid), 20, what="the container running once started")
    assert runtime.poll(cid) is None
