"""Pod spec → PodSandboxConfig and ContainerConfig (k8s-containers.md §4.1, §4.5, §5)."""
from __future__ import annotations

import json

import pytest
from google.protobuf.json_format import MessageToDict, ParseDict

from actors.kubelet.cri import specs
from actors.kubelet.cri.api import cri_pb2
from actors.kubelet.cri.security import ImageUser
from actors.kubelet.runtimes.base import StartError

GI = 2**30
DNS = {"servers": ["10.96.0.10"], "searches": ["team.svc.cluster.local", "svc.cluster.local"], "options": ["ndots:5"]}


def make_pod(**spec):
    containers = spec.pop("containers", None) or [{"name": "web", "image": "busybox:1.35"}]
    return {"metadata": {"name": "web-1", "namespace": "team", "uid": "u-9", "labels": {"app": "web"},
                         "annotations": {"note": "hi"}},
            "spec": {"containers": containers, **spec}}


def test_sandbox_config():
    pod = make_pod(containers=[
        {"name": "web", "image": "nginx:1.25", "ports": [{"containerPort": 80, "hostPort": 8080},
                                                         {"name": "metrics", "containerPort": 9090, "protocol": "TCP"},
                                                         {"name": "metrics", "containerPort": 9091}]},
        {"name": "dns", "image": "x:1", "ports": [{"containerPort": 53, "hostPort": 5353, "protocol": "UDP",
                                                    "hostIP": "127.0.0.1"}]}],
        securityContext={"sysctls": [{"name": "net.ipv4.ping_group_range", "value": "0 1000"}]})
    got = specs.sandbox_config(pod, logs_root="/var/log/pods/", dns_config=DNS, attempt=2)
    assert got["metadata"] == {"name": "web-1", "uid": "u-9", "namespace": "team", "attempt": 2}
    assert got["hostname"] == "web-1"
    assert got["log_directory"] == "/var/log/pods/team_web-1_u-9"
    assert got["dns_config"] == DNS
    assert got["port_mappings"] == [
        {"protocol": "TCP", "container_port": 80, "host_port": 8080},
        {"protocol": "TCP", "container_port": 9090},
        {"protocol": "UDP", "container_port": 53, "host_port": 5353, "host_ip": "127.0.0.1"}]
    assert got["labels"] == {"app": "web", "io.kubernetes.pod.name": "web-1", "io.kubernetes.pod.namespace": "team",
                             "io.kubernetes.pod.uid": "u-9"}
    assert got["annotations"] == {"note": "hi"}
    linux = got["linux"]
    assert linux["cgroup_parent"] == "/kubepods/besteffort/podu-9"
    assert linux["sysctls"] == {"net.ipv4.ping_group_range": "0 1000"}
    assert linux["resources"] == {"cpu_shares": 2}
    assert linux["security_context"]["seccomp"] == {"profile_type": "RuntimeDefault"}
    message = ParseDict(got, cri_pb2.PodSandboxConfig())
    assert message.port_mappings[2].protocol == cri_pb2.UDP
    assert message.linux.security_context.namespace_options.pid == cri_pb2.CONTAINER


def test_a_privileged_pods_sandbox_is_privileged_and_marked_for_a_writeable_sys():
    pod = make_pod(containers=[{"name": "plain", "image": "x:1"},
                               {"name": "root", "image": "x:1", "securityContext": {"privileged": True}}])
    got = specs.sandbox_config(pod, logs_root="/l", dns_config=None)
    assert got["linux"]["security_context"]["privileged"] is True
    assert got["annotations"] == {"note": "hi", "kubus.io/privileged-sandbox": "true"}
    assert pod["metadata"]["annotations"] == {"note": "hi"}


@pytest.mark.parametrize("spec, hostname", [
    pytest.param({}, "web-1", id="pod-name"),
    pytest.param({"hostname": "db-0"}, "db-0", id="spec-hostname"),
    pytest.param({"hostname": "a" * 62 + "-b"}, "a" * 62, id="truncated-no-trailing-dash"),
    pytest.param({"hostNetwork": True}, None, id="host-network-none"),
])
def test_sandbox_hostname(spec, hostname):
    got = specs.sandbox_config(make_pod(**spec), logs_root="/l", dns_config=None)
    assert got.get("hostname") == hostname
    assert "dns_config" not in got
    ParseDict(got, cri_pb2.PodSandboxConfig())


def config(container, pod=None, **kw):
    pod = pod or make_pod(containers=[container])
    kw.setdefault("instance", 3)
    kw.setdefault("env", {})
    kw.setdefault("memory_capacity", 8 * GI)
    return specs.container_config(pod, container, **kw)


def test_container_config():
    container = {"name": "web", "image": "busybox", "command": ["sh", "-c"], "args": ["echo $(GREETING) $$HOME"],
                 "workingDir": "/srv", "stdin": True, "stdinOnce": True, "tty": True,
                 "ports": [{"name": "http", "containerPort": 80, "protocol": "TCP"}],
                 "lifecycle": {"preStop": {"exec": {"command": ["sleep", "1"]}}},
                 "resources": {"limits": {"cpu": "200m", "memory": "64Mi"}}}
    pod = make_pod(containers=[container], terminationGracePeriodSeconds=5)
    mounts = [{"container_path": "/dev/termination-log", "host_path": "/var/lib/kubus/t/3", "readonly": False}]
    got = config(container, pod, env={"GREETING": "hi", "Z": "last"}, mounts=mounts)
    assert got["metadata"] == {"name": "web", "attempt": 3}
    assert got["image"] == {"image": "busybox:latest"}
    assert (got["command"], got["args"]) == (["sh", "-c"], ["echo hi $HOME"])
    assert got["working_dir"] == "/srv"
    assert got["envs"] == [{"key": "GREETING", "value": "hi"}, {"key": "Z", "value": "last"}]
    assert got["mounts"] == mounts
    assert got["log_path"] == "web/3.log"
    assert (got["stdin"], got["stdin_once"], got["tty"]) == (True, True, True)
    assert got["labels"] == {"io.kubernetes.container.name": "web", "io.kubernetes.pod.name": "web-1",
                             "io.kubernetes.pod.namespace": "team", "io.kubernetes.pod.uid": "u-9"}
    annotations = got["annotations"]
    assert annotations["io.kubernetes.container.restartCount"] == "3"
    assert annotations["io.kubernetes.container.terminationMessagePath"] == "/dev/termination-log"
    assert annotations["io.kubernetes.container.terminationMessagePolicy"] == "File"
    assert annotations["io.kubernetes.pod.terminationGracePeriod"] == "5"
    assert annotations["io.kubernetes.container.ports"] == '[{"name":"http","containerPort":80,"protocol":"TCP"}]'
    assert json.loads(annotations["io.kubernetes.container.preStopHandler"]) == {"exec": {"command": ["sleep", "1"]}}
    assert annotations["io.kubernetes.container.type"] == "container"
    assert got["linux"]["resources"]["cpu_quota"] == 20000
    assert got["linux"]["resources"]["memory_limit_in_bytes"] == 64 * 2**20
    assert got["linux"]["security_context"]["namespace_options"]["pid"] == "CONTAINER"
    message = ParseDict(got, cri_pb2.ContainerConfig())
    assert message.linux.resources.oom_score_adj == -997
    assert MessageToDict(message, preserving_proto_field_name=True)["log_path"] == "web/3.log"


@pytest.mark.parametrize("container, absent", [
    pytest.param({"name": "c", "image": "x:1"}, {"command", "args", "working_dir"}, id="image-decides"),
    pytest.param({"name": "c", "image": "x:1", "args": ["-v"]}, {"command", "working_dir"}, id="args-only"),
])
def test_command_and_args_left_to_the_image(container, absent):  # §4.5: the runtime combines them
    got = config(container)
    assert absent.isdisjoint(got)
    ParseDict(got, cri_pb2.ContainerConfig())


@pytest.mark.parametrize("kind", ["container", "init", "ephemeral"])
def test_container_type(kind):
    got = config({"name": "c", "image": "x:1"}, kind=kind)
    assert got["annotations"]["io.kubernetes.container.type"] == kind


def test_unknown_kind_refused():
    with pytest.raises(ValueError, match="kind must be one of container, init, ephemeral"):
        config({"name": "c", "image": "x:1"}, kind="sidecar")


def test_image_ref_and_user():
    container = {"name": "c", "image": "x:1"}
    got = config(container, image_ref="sha256:" + "b" * 64, image_user=ImageUser(65534, ""))
    assert got["image"] == {"image": "sha256:" + "b" * 64}
    assert got["linux"]["security_context"]["run_as_user"] == {"value": 65534}
    ParseDict(got, cri_pb2.ContainerConfig())


def test_run_as_non_root_checked_with_the_image_user():
    container = {"name": "c", "image": "x:1", "securityContext": {"runAsNonRoot": True}}
    with pytest.raises(StartError) as caught:
        config(container, image_user=ImageUser(0, ""))
    assert caught.value.message == ('container has runAsNonRoot and image will run as root '
                                    '(pod: "web-1_team(u-9)", container: c)')


def test_invalid_image_name():
    with pytest.raises(StartError) as caught:
        config({"name": "c", "image": "Bad"})
    assert caught.value.reason == "InvalidImageName"


@pytest.mark.parametrize("a, b, same", [
    pytest.param({"name": "c", "image": "x:1"}, {"name": "c", "image": "x:1", "args": ["1"]}, True, id="args-ignored"),
    pytest.param({"name": "c", "image": "x:1"}, {"name": "c", "image": "x:2"}, False, id="image-counts"),
    pytest.param({"name": "c", "image": "x:1"}, {"name": "d", "image": "x:1"}, False, id="name-counts"),
])
def test_container_hash(a, b, same):
    assert (specs.container_hash(a) == specs.container_hash(b)) is same
    assert len(specs.container_hash(a)) <= 8


def test_deletion_grace_annotation():
    pod = make_pod()
    pod["metadata"]["deletionGracePeriodSeconds"] = 0
    got = config(pod["spec"]["containers"][0], pod)
    assert got["annotations"]["io.kubernetes.pod.deletionGracePeriod"] == "0"


@pytest.mark.parametrize("kw, profile", [
    pytest.param({}, {"profile_type": "Unconfined"}, id="kubelet-default"),
    pytest.param({"seccomp_default": True}, {"profile_type": "RuntimeDefault"}, id="seccomp-default-on"),
])
def test_seccomp_default(kw, profile):
    got = config({"name": "c", "image": "x:1"}, **kw)
    assert got["linux"]["security_context"]["seccomp"] == profile
    ParseDict(got, cri_pb2.ContainerConfig())
