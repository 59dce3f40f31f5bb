"""exec and attach in a real container through the bus (runtime/streams.py → apiserver → the cri kubelet →
containerd's stream server): output, stdin, exit codes; refused for a person without `create
pods/exec`, for a container that is not running or absent, on a simulated node; frames believed
only from the requester."""
from __future__ import annotations

import asyncio
import json
from concurrent.futures import Future
from pathlib import Path

import pytest

from api.status import StatusError
from runtime.client import Client
from runtime.streams import CLOSE, ClientStream, exec_once
from testkit.people import as_person
from testkit.waiting import wait_until
from tests.integration.cri.test_cri_pods import pod, state


def run(client, name: str, command: list[str], stdin: bytes = b"", container: str | None = None):
    return asyncio.run(exec_once(client, "default", name, command, stdin, container))


@pytest.fixture(scope="module")
def node(cri_module):
    """The module's cri cluster, with `sleeper` running and `done` finished (every test only execs)."""
    client = cri_module.client
    client.create(pod("sleeper", "sleep 3600"))
    client.create(pod("done", "true"))
    wait_until(lambda: state(client, "sleeper", "running"), 60, what="sleeper to run")
    wait_until(lambda: run(client, "sleeper", ["true"]).exit_code == 0, 30, 0.2,
               what="containerd to run it")  # the kubelet says running once it asked containerd to start it
    wait_until(lambda: state(client, "done", "terminated"), 60, what="done to finish")
    return cri_module


@pytest.fixture
def sleeper(node):
    return node.client


@pytest.mark.parametrize("command, stdin, out, err, code", [
    (["echo", "hi"], b"", b"hi\n", b"", 0),
    (["sh", "-c", "echo oops >&2; exit 3"], b"", b"", b"oops\n", 3),
    (["sh", "-c", "read line; echo got:$line"], b"hello\n", b"got:hello\n", b"", 0),
    (["cat"], b"x" * 200_000, b"x" * 200_000, b"", 0),  # more than a window of frames; ends at stdin's close
])
def test_exec_runs_in_the_container(sleeper, command, stdin, out, err, code):
    done = run(sleeper, "sleeper", command, stdin)
    assert (done.stdout, done.stderr, done.exit_code) == (out, err, code), done.status


def test_exec_sees_the_containers_filesystem_not_the_hosts(sleeper):
    assert run(sleeper, "sleeper", ["sh", "-c", "test -x /bin/busybox && test ! -e /work && echo inside"]
               ).stdout == b"inside\n"


def test_a_person_without_create_pods_exec_is_refused(sleeper, node):
    bob = Client(as_person(node.settings, "bob"))
    try:
        with pytest.raises(StatusError) as refused:
            run(bob, "sleeper", ["echo", "hi"])
    finally:
        bob.close()
    assert refused.value.reason == "Forbidden" and "pods/exec" in refused.value.message, refused.value.message


@pytest.mark.parametrize("name, container, reason, message", [
    ("done", None, "BadRequest", 'unable to upgrade connection: container not found ("main")'),
    ("sleeper", "nope", "BadRequest", "container nope is not valid for pod sleeper"),
    ("absent", None, "NotFound", 'pods "absent" not found'),
])
def test_exec_refusals(sleeper, name, container, reason, message):
    with pytest.raises(StatusError) as refused:
        run(sleeper, name, ["echo", "hi"], container=container)
    assert (refused.value.reason, refused.value.message) == (reason, message)


def test_exec_in_a_pod_of_a_simulated_node_is_a_clear_400(sleeper, node):
    node.procs.start("actors.kubelet", "--node", "sim-1", "--runtime", "simulated", label="sim-kubelet")
    wait_until(lambda: sleeper.get("Node", "sim-1"), 30, what="sim-1 registered")
    sleeper.patch("Node", "sim-1", {"spec": {"unschedulable": True}})  # the module's other pods stay on node-1
    ghost = pod("ghost", "sleep 3600")
    ghost["spec"]["nodeName"] = "sim-1"
    sleeper.create(ghost)
    with pytest.raises(StatusError) as refused:
        run(sleeper, "ghost", ["true"])
    assert (refused.value.reason, refused.value.message) == (
        "BadRequest", 'pod "ghost" runs on node "sim-1", whose kubelet runs no containers (a simulated or hollow '
                      'node): exec needs a cri node')


def test_frames_from_anyone_but_the_requester_are_not_believed(sleeper, node):
    """Another person who learned a session's id sends it stdin: the kubelet drops it (the frame's
    broker-validated user_id is not the requester the apiserver named)."""
    async def scenario() -> bytes:
        stream = ClientStream(sleeper, "exec", "default", "sleeper",
                              {"command": ["cat"], "stdin": True, "stdout": True, "stderr": True})
        await stream.opened()
        bob = Client(as_person(node.settings, "bob"))
        try:
            evil = {"c": 0, "d": b"from bob\n"}
            bob.bus.run_on_loop(lambda: bob.bus.publish(bob.names.streams, stream.session, evil, type="frame",
                                                        user_id=bob.bus.user))
            routed: Future = Future()  # confirmed: in the inbox, ahead of the requester's frames
            bob.bus.run_on_loop(lambda: bob.bus.confirmed(lambda: routed.set_result(True)))
            await asyncio.wrap_future(routed)
            await stream.send(0, b"from the requester\n")
            await stream.send(CLOSE, b"\x00")
            out = b""
            while isinstance(frame := await stream.next(), dict) and not frame.get("end"):
                out += frame["d"] if frame["c"] == 1 else b""
            return out
        finally:
            stream.close()
            bob.close()
    assert asyncio.run(scenario()) == b"from the requester\n"


def test_attach_streams_the_containers_output(sleeper):
    sleeper.create(pod("talker", "i=0; while true; do i=$((i+1)); echo line $i; sleep 0.1; done"))
    wait_until(lambda: run(sleeper, "talker", ["true"]).exit_code == 0, 60, 0.2, what="talker to run")

    async def first_lines() -> list[bytes]:
        stream = ClientStream(sleeper, "attach", "default", "talker", {"stdout": True, "stderr": True})
        try:
            await stream.opened()
            out = b""
            while out.count(b"\n") < 3:
                frame = await asyncio.wait_for(stream.next(), 10)
                out += frame["d"] if isinstance(frame, dict) and frame.get("c") == 1 else b""
            return out.splitlines()[:3]
        finally:
            stream.close()
    lines = asyncio.run(first_lines())
    numbers = [int(line.split()[1]) for line in lines]
    assert all(line.startswith(b"line ") for line in lines) and numbers == list(range(numbers[0], numbers[0] + 3))


def test_an_exec_is_audited_as_create_pods_exec(sleeper, node):
    log = Path(node.procs.env["KUBUS_AUDIT_LOG"])

    def exec_events() -> list[dict]:
        events = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        return [e for e in events if (e.get("objectRef") or {}).get("subresource") == "exec"]
    before = len(exec_events())  # the module's earlier tests exec'd too
    run(sleeper, "sleeper", ["echo", "audited"])
    found = wait_until(lambda: exec_events()[before:], 20, what="the exec in the audit log")[-1]
    assert (found["verb"], found["objectRef"]["resource"], found["objectRef"]["name"], found["user"]["username"],
            found["responseStatus"]["code"]) == ("create", "pods", "sleeper", "admin", 101), found
