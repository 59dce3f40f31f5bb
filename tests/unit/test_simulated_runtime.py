"""The simulated runtime under a pod worker: init containers complete after the startup time, as
KWOK's stages have them, unless an annotation makes them fail; what kubectl's STATUS column shows."""
from __future__ import annotations

import pytest

from actors.kubelet.runtimes.simulated import INIT_EXIT_CODE, STARTUP, SimulatedRuntime
from actors.kubelet.status import pod_status
from actors.kubelet.worker import PodWorker
from api.printers.workloads import pod_status as shown


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _pod(notes: dict[str, str], policy: str = "Always", inits: int = 1, sidecar: bool = False) -> dict:
    init_specs = [{"name": f"init-{i}", "image": "busybox"} for i in range(inits)]
    if sidecar:
        init_specs.append({"name": "proxy", "image": "envoy", "restartPolicy": "Always"})
    return {"metadata": {"name": "myapp", "namespace": "shop", "uid": "u1", "annotations": notes},
            "spec": {"restartPolicy": policy, "initContainers": init_specs,
                     "containers": [{"name": "app", "image": "busybox"}]}}


def _run(pod: dict, seconds: list[float]) -> list[str]:
    """Sync the worker at each of these seconds after admission; kubectl's STATUS after each."""
    clock = Clock()
    worker, start, seen, status = PodWorker(pod, SimulatedRuntime(clock), clock, "10.0.0.1"), clock.now, [], None
    for at in seconds:
        clock.now = start + at
        worker.sync()
        status = pod_status(worker, status)
        seen.append(shown({**pod, "status": status}))
    return seen


@pytest.mark.parametrize("pod, seconds, statuses", [
    pytest.param(_pod({STARTUP: "2"}), [0, 1, 2, 3, 4], ["Init:0/1", "Init:0/1", "ContainerCreating",
                                                         "ContainerCreating", "Running"], id="one-init"),
    pytest.param(_pod({STARTUP: "2"}, inits=2), [0, 2, 4, 6], ["Init:0/2", "Init:1/2", "ContainerCreating",
                                                               "Running"], id="two-inits-in-order"),
    pytest.param(_pod({}), [0, 0, 0], ["Init:0/1", "Running", "Running"], id="no-startup-time"),
    pytest.param(_pod({STARTUP: "1", INIT_EXIT_CODE: "1"}, policy="Never"), [0, 1, 2],
                 ["Init:0/1", "Init:Error", "Init:Error"], id="failed-init-never-restarted"),
    pytest.param(_pod({STARTUP: "1", INIT_EXIT_CODE: "1"}), [0, 1, 1, 2, 3],
                 ["Init:0/1", "Init:0/1", "Init:0/1", "Init:CrashLoopBackOff", "Init:CrashLoopBackOff"],
                 id="failed-init-restarted-with-back-off"),
])
def test_init_containers_complete_after_the_startup_time(pod, seconds, statuses):
    assert _run(pod, seconds) == statuses


def test_a_completed_init_reads_completed_and_the_pod_initialized():
    clock = Clock()
    worker = PodWorker(_pod({STARTUP: "2"}), SimulatedRuntime(clock), clock, "10.0.0.1")
    worker.sync()
    clock.now += 2
    worker.sync()
    status = pod_status(worker, None)
    assert status["initContainerStatuses"][0]["state"]["terminated"] | {"startedAt": "", "finishedAt": ""} == \
        {"exitCode": 0, "reason": "Completed", "containerID": None, "startedAt": "", "finishedAt": ""}
    assert {c["type"]: c["status"] for c in status["conditions"]}["Initialized"] == "True"


@pytest.mark.parametrize("container, notes, exits", [
    pytest.param({"name": "init-0"}, {STARTUP: "3"}, [(2, None), (3, 0)], id="init-exits-zero-at-startup"),
    pytest.param({"name": "init-0"}, {STARTUP: "3", INIT_EXIT_CODE: "2"}, [(3, 2)], id="init-exit-code"),
    pytest.param({"name": "init-0"}, {STARTUP: "3", "kubus.io/simulated-exit-code": "5",
                                      "kubus.io/simulated-run-seconds": "60"}, [(3, 0)],
                 id="app-annotations-leave-inits-alone"),
    pytest.param({"name": "proxy", "restartPolicy": "Always"}, {STARTUP: "3"}, [(3, None), (10**6, None)],
                 id="sidecar-runs-on"),
    pytest.param({"name": "app"}, {STARTUP: "3"}, [(10**6, None)], id="app-runs-on"),
    pytest.param({"name": "app"}, {STARTUP: "3", "kubus.io/simulated-exit-code": "5",
                                   "kubus.io/simulated-run-seconds": "4"}, [(6, None), (7, 5)],
                 id="app-exits-after-startup-and-run"),
])
def test_when_a_simulated_container_exits(container, notes, exits):
    clock = Clock()
    runtime, pod = SimulatedRuntime(clock), _pod(notes, sidecar=True)
    cid, start = runtime.start(pod, container, 0, {}), clock.now
    for at, code in exits:
        clock.now = start + at
        result = runtime.poll(cid)
        assert (result.code if result else None) == code


def test_a_sidecar_starts_in_order_and_runs_beside_the_app():
    assert _run(_pod({STARTUP: "2"}, sidecar=True), [0, 2, 4, 6, 100]) == [
        "Init:0/2", "Init:1/2", "ContainerCreating", "Running", "Running"]
