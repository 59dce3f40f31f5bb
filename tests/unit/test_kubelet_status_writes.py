"""When a kubelet writes a pod's status: once per change, even while the pod's event that brings the
written status back is late (a busy store or broker). Rewriting on every sync tick until then turned
a backlog into more writes: bench.startup's control plane collapsed under its own status writes."""
from __future__ import annotations

from actors.kubelet.agent import NodeAgent
from actors.kubelet.nodeinfo import NodeConfig
from actors.kubelet.runtimes.simulated import EXIT_CODE, RUN, STARTUP, SimulatedRuntime


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Calls:
    """The requests an agent sends, answered by the test."""

    def __init__(self) -> None:
        self.sent: list[tuple[dict, object]] = []

    def __call__(self, body: dict, done) -> None:
        self.sent.append((body, done))

    def status_writes(self) -> list[dict]:
        return [body for body, _ in self.sent if body["verb"] == "updateStatus"]

    def answer_all(self) -> None:
        sent, self.sent = self.sent, []
        for body, done in sent:
            done({"ok": True, "object": body.get("object")})


def _pod(annotations: dict | None = None) -> dict:
    return {"metadata": {"name": "web-0", "namespace": "shop", "uid": "u1", "resourceVersion": "7",
                         "annotations": annotations or {}},
            "spec": {"nodeName": "node-1", "restartPolicy": "Never", "containers": [{"name": "app", "image": "nginx"}]},
            "status": {"phase": "Pending", "conditions": [
                {"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                 "lastTransitionTime": "2026-11-25T10:00:00Z"}]}}


def _agent(clock: Clock, calls: Calls) -> NodeAgent:
    return NodeAgent(NodeConfig("node-1", runtime="simulated"), SimulatedRuntime(clock), calls, clock)


def test_a_written_status_is_not_written_again_before_its_event_comes_back():
    clock, calls = Clock(), Calls()
    agent = _agent(clock, calls)
    agent.pod_changed(_pod(), gone=False)
    agent.sync_all()
    assert [w["object"]["status"]["phase"] for w in calls.status_writes()] == ["Running"]
    calls.answer_all()
    for _ in range(5):  # seconds pass, the pod's event with the written status has not come
        clock.now += 1.5
        agent.sync_all()
    assert calls.status_writes() == []


def test_a_change_is_still_written_and_keeps_the_transition_times_written_before():
    clock, calls = Clock(), Calls()
    agent = _agent(clock, calls)
    agent.pod_changed(_pod({EXIT_CODE: "0", RUN: "2"}), gone=False)
    first = calls.status_writes()[0]["object"]["status"]
    calls.answer_all()
    clock.now += 3  # the container has exited: the pod completed
    agent.sync_all()
    again = calls.status_writes()
    assert [w["object"]["status"]["phase"] for w in again] == ["Succeeded"]
    since = {c["type"]: c["lastTransitionTime"] for c in first["conditions"]}
    kept = {c["type"]: c["lastTransitionTime"] for c in again[0]["object"]["status"]["conditions"]
            if c["type"] in ("PodReadyToStartContainers", "Initialized", "PodScheduled")}
    assert kept == {t: since[t] for t in kept}


def test_a_change_that_only_time_brings_is_written():
    """A container past its startup time is running: no event and no container exit says so."""
    clock, calls = Clock(), Calls()
    agent = _agent(clock, calls)
    agent.pod_changed(_pod({STARTUP: "2"}), gone=False)
    agent.sync_all()
    calls.answer_all()
    clock.now += 1
    agent.sync_all()
    assert calls.status_writes() == []
    clock.now += 1.5
    agent.sync_all()
    assert [w["object"]["status"]["containerStatuses"][0]["state"].keys() for w in calls.status_writes()] == [
        {"running"}]


def test_a_change_made_while_a_write_is_out_goes_when_it_is_answered():
    """Not one sync tick (0.5 s) later: that tick was most of a pod's startup time at low load."""
    clock, calls = Clock(), Calls()
    agent = _agent(clock, calls)
    agent.pod_changed(_pod({STARTUP: "1"}), gone=False)
    assert [w["object"]["status"]["containerStatuses"][0]["state"].keys() for w in calls.status_writes()] == [
        {"waiting"}]
    clock.now += 1.5
    agent.sync_all()  # started meanwhile; the first write is still out
    calls.answer_all()
    assert [w["object"]["status"]["containerStatuses"][0]["state"].keys() for w in calls.status_writes()] == [
        {"running"}]


class CountingRuntime(SimulatedRuntime):
    def __init__(self, clock):
        super().__init__(clock)
        self.polls = 0

    def poll(self, container_id: str):
        self.polls += 1
        return super().poll(container_id)


def test_a_settled_pod_is_left_be_until_its_runtime_foresees_a_change():
    """A hollow kubelet's thousands of running pods cost nothing per tick; the exit still comes on time."""
    clock, calls = Clock(), Calls()
    runtime = CountingRuntime(clock)
    agent = NodeAgent(NodeConfig("node-1", runtime="simulated"), runtime, calls, clock)
    agent.pod_changed(_pod({RUN: "3", EXIT_CODE: "0"}), gone=False)
    calls.answer_all()
    agent.sync_all()  # the write is answered: settled
    polls = runtime.polls
    for _ in range(4):
        clock.now += 0.5
        agent.sync_all()
    assert runtime.polls == polls and calls.status_writes() == []
    clock.now += 1.5  # past the exit
    agent.sync_all()
    assert [w["object"]["status"]["phase"] for w in calls.status_writes()] == ["Succeeded"]


def test_a_node_whose_pods_are_all_settled_is_not_looked_through_but_a_deleted_pod_still_stops():
    clock, calls = Clock(), Calls()
    agent = _agent(clock, calls)
    agent.pod_changed(_pod({RUN: "3", EXIT_CODE: "0"}), gone=False)
    calls.answer_all()
    agent.sync_all()  # the write is answered: settled until its exit
    assert agent.due == agent.workers["u1"].quiet_to > clock.now
    agent.workers = Untouchable(agent.workers)
    clock.now += 0.5
    agent.sync_all()  # nothing is due: the workers are not even listed
    agent.workers = dict(agent.workers)
    agent.pod_changed(_pod(), gone=True)  # removed from the API: due at once
    agent.sync_all()
    assert agent.workers["u1"].kill_at is not None  # its containers are being stopped


class Untouchable(dict):
    def values(self):
        raise AssertionError("a node with nothing due was looked through")
