"""The kubelet with real processes: runs pods, restarts them with back-off, kills them on delete,
survives its own kill -9 without duplicating or orphaning a container, serves logs."""
from __future__ import annotations

import os
import subprocess
import uuid

import pytest

from api.status import StatusError
from runtime.client import Client
from testkit.waiting import wait_until
from testkit import cli


def shell_pod(name: str, script: str, policy: str = "Always", grace: int | None = None) -> dict:
    spec = {"restartPolicy": policy, "containers": [{"name": "main", "image": "busybox",
                                                     "command": ["sh", "-c", script]}]}
    if grace is not None:
        spec["terminationGracePeriodSeconds"] = grace
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def phase(client: Client, name: str) -> str:
    return (client.get("Pod", name).get("status") or {}).get("phase", "")


def status_of(client: Client, name: str) -> dict:
    return (client.get("Pod", name).get("status") or {}).get("containerStatuses", [{}])[0]


def sleeper() -> str:
    """A `sleep` duration no other process has: it names the container's process."""
    return f"1000.{uuid.uuid4().int % 10**9:09d}"


def processes(marker: str) -> list[int]:
    """Pids of the container processes running `sleep MARKER`."""
    out = subprocess.run(["pgrep", "-fx", f"sleep {marker}"], capture_output=True, text=True).stdout
    return [int(p) for p in out.split() if int(p) != os.getpid()]


@pytest.mark.shared_plane  # node-1 and its kubelet are the module's, the pods in the test's namespace
def test_node_registers_with_a_lease(node_cluster):
    node = node_cluster.get("Node", "node-1")
    assert {c["type"]: c["status"] for c in node["status"]["conditions"]}["Ready"] == "True"
    assert node["status"]["nodeInfo"]["containerRuntimeVersion"] == "process://kubus"
    lease = wait_until(lambda: node_cluster.get("Lease", "node-1", "kube-node-lease"), what="the lease")
    assert lease["spec"]["holderIdentity"] == "node-1"


@pytest.mark.shared_plane
def test_pod_that_exits_zero_succeeds_and_its_logs_read_back(node_cluster, procs):
    node_cluster.create(shell_pod("hello", "echo hello from $HOSTNAME; echo second line", policy="Never"))
    wait_until(lambda: phase(node_cluster, "hello") == "Succeeded", 30, what="Succeeded")
    state = status_of(node_cluster, "hello")["state"]["terminated"]
    assert (state["exitCode"], state["reason"]) == (0, "Completed")
    pod = node_cluster.get("Pod", "hello")
    assert pod["status"]["hostIP"] == "127.0.0.1" and pod["status"]["startTime"]
    assert node_cluster.logs("hello")["text"] == "hello from hello\nsecond line\n"
    out = cli.kubus("logs", "hello", "--tail", "1", "-n", node_cluster.namespace, env=procs.env)
    assert out.stdout == "second line\n", out.stderr


@pytest.mark.shared_plane
def test_failing_container_restarts_with_growing_back_off(node_cluster):
    node_cluster.create(shell_pod("crash", "echo crashing; exit 1"))
    waiting = wait_until(lambda: (status_of(node_cluster, "crash").get("state") or {}).get("waiting", {})
                         .get("reason") == "CrashLoopBackOff" and status_of(node_cluster, "crash"), 30,
                         what="CrashLoopBackOff")
    assert waiting["restartCount"] >= 1
    assert waiting["lastState"]["terminated"]["exitCode"] == 1
    assert "back-off 10s restarting failed container=main" in waiting["state"]["waiting"]["message"]
    later = wait_until(lambda: "back-off 20s" in str(status_of(node_cluster, "crash")["state"]) and
                       status_of(node_cluster, "crash"), 40, what="the second back-off")
    assert later["restartCount"] >= 2
    assert phase(node_cluster, "crash") == "Running"  # restarting counts as running
    assert node_cluster.logs("crash", previous=True)["text"] == "crashing\n"


@pytest.mark.shared_plane
def test_delete_kills_the_process_within_the_grace_period(node_cluster):
    marker = sleeper()
    node_cluster.create(shell_pod("sleeper", f"exec sleep {marker}", grace=3))
    wait_until(lambda: processes(marker), 30, what="the container process")
    node_cluster.delete("Pod", "sleeper")
    wait_until(lambda: not processes(marker), 10, what="the process to be killed")

    def gone() -> bool:
        try:
            node_cluster.get("Pod", "sleeper")
            return False
        except StatusError as exc:
            return exc.reason == "NotFound"

    wait_until(gone, 15, what="the pod to disappear")


def test_kubelet_kill_9_neither_duplicates_nor_orphans(node_cluster, procs):
    keep, lose = sleeper(), sleeper()
    node_cluster.create(shell_pod("kept", f"exec sleep {keep}"))
    node_cluster.create(shell_pod("lost", f"exec sleep {lose}"))
    wait_until(lambda: processes(keep) and processes(lose), 30, what="both containers")
    before = processes(keep)
    procs.kill9(procs.kubelet)
    node_cluster.delete("Pod", "lost", grace_period=0)  # force-deleted while its kubelet is down
    procs.start("actors.kubelet", "--node", "node-1", label="kubelet-again")
    wait_until(lambda: not processes(lose), 30, what="the orphan to be cleaned up")
    assert processes(keep) == before  # adopted, not started again
    wait_until(lambda: status_of(node_cluster, "kept").get("state", {}).get("running"), 30, what="still running")
    assert status_of(node_cluster, "kept")["restartCount"] == 0


def test_exits_while_the_kubelet_is_down_count_as_restarts(node_cluster, procs):
    """Like a node's kubelet after a reboot: restartCount goes on, a finished pod is not run again."""
    crash = sleeper()
    node_cluster.create(shell_pod("crashed", f"exec sleep {crash}"))
    node_cluster.create(shell_pod("done", "echo finished", policy="Never"))
    wait_until(lambda: processes(crash) and phase(node_cluster, "done") == "Succeeded", 30, what="both pods")
    procs.kill9(procs.kubelet)
    for pid in processes(crash):
        os.kill(pid, 9)
    procs.start("actors.kubelet", "--node", "node-1", label="kubelet-again")
    wait_until(lambda: status_of(node_cluster, "crashed").get("restartCount") == 1 and processes(crash), 30,
               what="the crashed container started again as its second instance")
    last = status_of(node_cluster, "crashed")["lastState"]["terminated"]
    assert last["exitCode"] == 137
    assert phase(node_cluster, "done") == "Succeeded" and status_of(node_cluster, "done")["restartCount"] == 0
    logs = cli.kubus("logs", "done", env=procs.env, timeout=30).stdout
    assert logs.splitlines() == ["finished"]  # ran once


@pytest.mark.shared_plane
def test_liveness_failure_restarts_and_readiness_flips_ready(node_cluster, settings):
    pod = shell_pod("probed", "touch healthy ready; sleep 1000")
    container = pod["spec"]["containers"][0]
    container["livenessProbe"] = {"exec": {"command": ["test", "-f", "healthy"]}, "periodSeconds": 1,
                                  "failureThreshold": 2}
    container["readinessProbe"] = {"exec": {"command": ["test", "-f", "ready"]}, "periodSeconds": 1,
                                   "failureThreshold": 1}
    created = node_cluster.create(pod)
    workdir = settings.data_dir / "kubelet" / "node-1" / created["metadata"]["uid"]  # the process runtime's

    def ready() -> bool:
        return status_of(node_cluster, "probed").get("ready") is True

    wait_until(ready, 30, what="ready")
    conditions = {c["type"]: c["status"] for c in node_cluster.get("Pod", "probed")["status"]["conditions"]}
    assert conditions["Ready"] == "True"
    (workdir / "ready").unlink()
    wait_until(lambda: not ready(), 15, what="not ready")
    assert status_of(node_cluster, "probed")["state"].get("running")  # readiness does not restart
    (workdir / "healthy").unlink()
    restarted = wait_until(lambda: status_of(node_cluster, "probed").get("restartCount", 0) >= 1 and
                           status_of(node_cluster, "probed"), 30, what="the liveness restart")
    assert "failed liveness probe" in restarted["lastState"]["terminated"]["message"]



# ---- a simulated node runs init containers to completion (issue 13) ---------------------------------
def init_pod(name: str, node: str, notes: dict[str, str], policy: str = "Always") -> dict:
    """The Kubernetes documentation's init-containers example, annotated for the simulated runtime."""
    init = [{"name": n, "image": "busybox:1.28", "command": ["sh", "-c", f"until nslookup {s}; do sleep 2; done"]}
            for n, s in (("init-myservice", "myservice"), ("init-mydb", "mydb"))]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "annotations": notes},
            "spec": {"nodeName": node, "restartPolicy": policy, "initContainers": init,
                     "containers": [{"name": "myapp-container", "image": "busybox:1.28",
                                     "command": ["sh", "-c", "echo The app is running! && sleep 3600"]}]}}


def shown_status(client: Client, name: str) -> str:
    from api.printers.workloads import pod_status

    return pod_status(client.get("Pod", name))


def test_simulated_init_containers_complete_and_the_cli_follows(node_cluster, procs):
    procs.start("actors.kubelet", "--node", "sim-1", "--runtime", "simulated", label="sim-kubelet")
    wait_until(lambda: node_cluster.get("Node", "sim-1"), 30, what="the simulated node")
    node_cluster.create(init_pod("myapp", "sim-1", {"kubus.io/simulated-startup-seconds": "2"}))
    node_cluster.create(init_pod("broken", "sim-1", {"kubus.io/simulated-init-exit-code": "1"}, policy="Never"))
    seen = set()

    def running() -> bool:
        seen.add(shown_status(node_cluster, "myapp"))
        return "Running" in seen

    wait_until(running, 40, what="myapp Running after its init containers")
    assert {"Init:0/2", "Init:1/2"} <= seen, seen
    wait_until(lambda: phase(node_cluster, "broken") == "Failed", 30, what="the failed init to fail the pod")
    got = cli.kubus("get", "pods", env=procs.env)
    statuses = {line.split()[0]: line.split()[2] for line in got.stdout.splitlines()[1:]}
    assert statuses == {"myapp": "Running", "broken": "Init:Error"}, got.stdout + got.stderr
    described = cli.kubus("describe", "pod", "myapp", env=procs.env).stdout
    lines = described.splitlines()
    assert lines.index("Init Containers:") < lines.index("  init-myservice:") < lines.index("  init-mydb:") < \
        lines.index("Containers:") < lines.index("  myapp-container:"), described
    at = lines.index("  init-mydb:")
    assert lines[at + 3:at + 5] == ["    State:    Terminated", "      Reason:   Completed"], described
