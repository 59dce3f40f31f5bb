"""Pods as real containers (containerd + runc): images from the local registry, the pod IP from CNI,
exits and restarts, the kubelet's waiting reasons, deletion, a kubelet restart that adopts. One cri
cluster for the module (`node`): each test's pods have names of their own and it looks only at them;
the kubelet's restart keeps a cluster of its own."""
from __future__ import annotations

import re

import pytest

from actors.kubelet.cri.client import RuntimeClient
from actors.kubelet.cri.containerd import Layout
from actors.kubelet.cri.specs import POD_UID
from testkit.waiting import wait_until

BUSYBOX = "busybox:1.35"


def pod(name: str, script: str, policy: str = "Never", image: str = BUSYBOX, **container) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"restartPolicy": policy, "terminationGracePeriodSeconds": 2,
                     "containers": [{"name": "main", "image": image, "command": ["sh", "-c", script], **container}]}}


def status(client, name: str) -> dict:
    return client.get("Pod", name).get("status") or {}


def container(client, name: str) -> dict:
    return (status(client, name).get("containerStatuses") or [{}])[0]


def state(client, name: str, key: str) -> dict:
    return (container(client, name).get("state") or {}).get(key) or {}


def runtime(settings) -> RuntimeClient:
    return RuntimeClient(str(Layout((settings.data_dir / "kubelet" / "node-1" / "cri").resolve()).socket))


def containers_in_runtime(settings, uid: str | None = None) -> list[str]:
    """The ids of node-1's containers in its containerd, as CRI lists them (sandboxes are not among
    them); only those of the pod of `uid` when given."""
    cri = runtime(settings)
    try:
        return [c.id for c in cri.containers(labels={POD_UID: uid} if uid else None)]
    finally:
        cri.close()


def sandboxes_in_runtime(settings, uid: str) -> list[str]:
    """The ids of the sandboxes node-1's containerd has for the pod of `uid`."""
    cri = runtime(settings)
    try:
        return [s.id for s in cri.sandboxes(labels={POD_UID: uid})]
    finally:
        cri.close()


@pytest.fixture
def node(cri_module):
    """The module's cri cluster's client (`cri_module.settings` its settings)."""
    return cri_module.client


def test_a_pod_runs_from_its_image_with_an_address_of_the_nodes_range(node):
    node.create(pod("hello", "echo hello; id -u; test ! -e /work && test -x /bin/busybox"))
    done = wait_until(lambda: state(node, "hello", "terminated"), 60, what="hello to finish")
    assert (done["exitCode"], done["reason"]) == (0, "Completed"), done
    found = status(node, "hello")
    cidr = node.get("Node", "node-1")["spec"]["podCIDR"]
    assert found["phase"] == "Succeeded"
    assert found["podIP"].rsplit(".", 1)[0] == cidr.rsplit(".", 1)[0] and found["podIP"] != found["hostIP"]
    assert container(node, "hello")["containerID"].startswith("containerd://")


def test_a_failing_container_restarts_with_back_off(node):
    node.create(pod("crash", "exit 3", policy="Always"))
    waiting = wait_until(lambda: state(node, "crash", "waiting").get("reason") == "CrashLoopBackOff"
                         and container(node, "crash"), 60, what="CrashLoopBackOff")
    assert waiting["lastState"]["terminated"]["exitCode"] == 3
    assert waiting["lastState"]["terminated"]["reason"] == "Error"


def test_only_the_last_dead_instance_of_a_container_is_kept(node, cri_module):
    """The kubelet's container garbage collection: the previous instance stays for `logs --previous`."""
    node.create(pod("crash-gc", "exit 3", policy="Always"))
    wait_until(lambda: container(node, "crash-gc").get("restartCount", 0) >= 2, 60, what="a second restart")
    uid = node.get("Pod", "crash-gc")["metadata"]["uid"]
    wait_until(lambda: len(containers_in_runtime(cri_module.settings, uid)) == 2, 30,
               what="the first instance removed")
    assert node.logs("crash-gc", previous=True)["text"] == ""


def test_a_missing_image_is_err_image_pull_then_back_off(node):
    node.create(pod("ghost", "true", image="kubus/no-such-image:1.0"))
    first = wait_until(lambda: state(node, "ghost", "waiting").get("reason") in ("ErrImagePull",
                                                                                "ImagePullBackOff")
                       and state(node, "ghost", "waiting"), 60, what="the pull to fail")
    assert "kubus/no-such-image:1.0" in first.get("message", ""), first
    backoff = wait_until(lambda: state(node, "ghost", "waiting").get("reason") == "ImagePullBackOff"
                         and state(node, "ghost", "waiting"), 60, what="ImagePullBackOff")
    assert backoff["message"] == 'Back-off pulling image "kubus/no-such-image:1.0"'


def test_run_as_non_root_refuses_a_root_image_with_the_kubelets_message(node):
    node.create(pod("rooted", "true", securityContext={"runAsNonRoot": True}))
    waiting = wait_until(lambda: state(node, "rooted", "waiting").get("reason") ==
                         "CreateContainerConfigError" and state(node, "rooted", "waiting"), 60,
                         what="CreateContainerConfigError")
    assert waiting["message"] == 'container has runAsNonRoot and image will run as root (pod: ' \
                                 f'"rooted_default({node.get("Pod", "rooted")["metadata"]["uid"]})", ' \
                                 'container: main)'


def test_the_clusters_secrets_are_not_in_a_pod(node, cri_module):
    """The process runtime's hole: a pod read the cluster's key from the host. In a container the
    host's files are not there at all."""
    key = next(cri_module.settings.secrets_dir.glob("*.key"))
    node.create(pod("thief", f"cat {key} 2>/dev/null || cat /proc/1/root{key} 2>/dev/null || echo none-here"))
    wait_until(lambda: state(node, "thief", "terminated"), 60, what="the thief to finish")
    assert state(node, "thief", "terminated")["exitCode"] == 0
    assert node.logs("thief")["text"].splitlines()[-1] == "none-here"


def test_a_memory_hog_is_oom_killed(node):
    hog = "x=$(head -c 200000000 /dev/zero | tr '\\0' a); echo survived"
    node.create(pod("hog", hog, resources={"limits": {"memory": "32Mi"}}))
    done = wait_until(lambda: state(node, "hog", "terminated"), 60, what="the hog to end")
    assert (done["reason"], done["exitCode"]) == ("OOMKilled", 137), done


def test_delete_stops_the_containers_and_removes_the_sandbox(node, cri_module):
    node.create(pod("sleeper", "trap 'exit 0' TERM; sleep 1000 & wait", policy="Always"))
    wait_until(lambda: state(node, "sleeper", "running"), 60, what="sleeper running")
    uid = node.get("Pod", "sleeper")["metadata"]["uid"]
    assert containers_in_runtime(cri_module.settings, uid) and sandboxes_in_runtime(cri_module.settings, uid)
    node.delete("Pod", "sleeper")
    wait_until(lambda: not [p for p in node.list("Pod").items if p["metadata"]["name"] == "sleeper"], 60,
               what="the pod gone")
    wait_until(lambda: containers_in_runtime(cri_module.settings, uid) == [], 30,
               what="none of its containers left in containerd")
    wait_until(lambda: sandboxes_in_runtime(cri_module.settings, uid) == [], 30, what="its sandbox removed")


def test_a_restarted_kubelet_adopts_its_running_containers(cri_cluster, procs):
    cri_cluster.create(pod("steady", "sleep 1000", policy="Always"))
    wait_until(lambda: state(cri_cluster, "steady", "running"), 60, what="steady running")
    before = container(cri_cluster, "steady")["containerID"]
    procs.kubelet.kill()
    procs.kubelet.wait(10)
    procs.kubelet = procs.start("actors.kubelet", "--node", "node-1", "--runtime", "cri", label="kubelet-again")
    wait_until(lambda: cri_cluster.get("Lease", "node-1", "kube-node-lease"), 30, what="the lease")
    after = wait_until(lambda: state(cri_cluster, "steady", "running") and container(cri_cluster, "steady"), 30,
                       what="steady still running")
    assert (after["containerID"], after["restartCount"]) == (before, 0)


def test_logs_read_back_as_text_with_tail_and_previous(node):
    node.create(pod("talker", "echo one; echo two; echo three; echo oops >&2; exit 1", policy="Always"))
    wait_until(lambda: container(node, "talker").get("restartCount", 0) >= 1, 60, what="a restart")
    previous = node.logs("talker", previous=True)["text"]  # two pipes: stderr's line may come anywhere
    assert previous.replace("oops\n", "") == "one\ntwo\nthree\n" and "oops\n" in previous
    assert node.logs("talker", previous=True, tail=2)["text"] in ("three\noops\n", "two\nthree\n", "oops\nthree\n")


def test_a_node_without_its_runtime_says_so_in_its_ready_condition(procs, settings, tmp_path):
    from tests.conftest import control_plane
    client = control_plane(procs, settings)
    procs.start("actors.kubelet", "--node", "lonely", "--runtime", "cri", label="kubelet",
                KUBUS_CRI_ENDPOINT=str(tmp_path / "no-such-containerd.sock"))
    ready = wait_until(lambda: next((c for c in (client.get("Node", "lonely").get("status") or {}).get(
        "conditions", []) if c["type"] == "Ready"), None) if client.list("Node").items else None, 30,
        what="the node registered")
    assert (ready["status"], ready["reason"]) == ("False", "KubeletNotReady"), ready
    assert ready["message"].startswith("container runtime is down"), ready
    client.close()


def test_logs_with_timestamps_and_since(node):
    node.create(pod("stamped", "echo first; echo second"))
    wait_until(lambda: state(node, "stamped", "terminated"), 60, what="stamped to finish")
    stamped = node.logs("stamped", timestamps=True)["text"].splitlines()
    assert [line.split(" ", 1)[1] for line in stamped] == ["first", "second"]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z", line.split(" ", 1)[0]) for line in stamped)
    assert node.logs("stamped", since_seconds=3600)["text"] == "first\nsecond\n"
