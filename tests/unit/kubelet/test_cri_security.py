"""securityContext → CRI security contexts and the runAsNonRoot check (k8s-containers.md §1.4, §4.6, §4.7)."""
from __future__ import annotations

import pytest
from google.protobuf.json_format import ParseDict

from actors.kubelet.cri import security
from actors.kubelet.cri.api import cri_pb2
from actors.kubelet.cri.security import ImageUser
from actors.kubelet.runtimes.base import StartError

MASKED = ["/proc/asound", "/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats", "/proc/timer_list",
          "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi", "/sys/firmware", "/sys/devices/virtual/powercap"]
READONLY = ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"]
POD_NS = {"network": "POD", "pid": "CONTAINER", "ipc": "POD"}


def pod(containers=None, sc=None, **spec):
    return {"metadata": {"name": "web", "namespace": "team", "uid": "u-1"},
            "spec": {"containers": containers or [{"name": "c"}], "securityContext": sc or {}, **spec}}


@pytest.mark.parametrize("spec, expected", [
    pytest.param({}, POD_NS, id="default"),
    pytest.param({"hostNetwork": True}, {"network": "NODE", "pid": "CONTAINER", "ipc": "POD"}, id="host-network"),
    pytest.param({"hostPID": True, "shareProcessNamespace": True}, {"network": "POD", "pid": "NODE", "ipc": "POD"},
                 id="host-pid-wins"),
    pytest.param({"shareProcessNamespace": True}, {"network": "POD", "pid": "POD", "ipc": "POD"}, id="shared-pid"),
    pytest.param({"hostIPC": True}, {"network": "POD", "pid": "CONTAINER", "ipc": "NODE"}, id="host-ipc"),
])
def test_namespace_options(spec, expected):  # §1.4 NamespacesForPod
    assert security.namespace_options(pod(**spec)) == expected


@pytest.mark.parametrize("the_pod, expected", [
    pytest.param(pod(), {"namespace_options": POD_NS, "privileged": False, "readonly_rootfs": False,
                         "seccomp": {"profile_type": "RuntimeDefault"}}, id="empty"),
    pytest.param(pod(sc={"runAsUser": 1000, "runAsGroup": 3000, "fsGroup": 2000, "supplementalGroups": [4000, 5000],
                         "seccompProfile": {"type": "Unconfined"}}),
                 {"namespace_options": POD_NS, "privileged": False, "readonly_rootfs": False,
                  "seccomp": {"profile_type": "RuntimeDefault"}, "run_as_user": {"value": 1000},
                  "run_as_group": {"value": 3000}, "supplemental_groups": [2000, 4000, 5000]},
                 id="users-groups-seccomp-always-runtime-default"),
    pytest.param(pod(containers=[{"name": "a"}, {"name": "b", "securityContext": {"privileged": True}}],
                     hostNetwork=True),
                 {"namespace_options": {"network": "NODE", "pid": "CONTAINER", "ipc": "POD"}, "privileged": True,
                  "readonly_rootfs": False, "seccomp": {"profile_type": "RuntimeDefault"}},
                 id="privileged-if-any-container"),
])
def test_sandbox_security(the_pod, expected):
    got = security.sandbox_security(the_pod)
    assert got == expected
    ParseDict(got, cri_pb2.LinuxSandboxSecurityContext())


BASE = {"privileged": False, "readonly_rootfs": False, "namespace_options": POD_NS,
        "seccomp": {"profile_type": "Unconfined"}, "no_new_privs": False, "masked_paths": MASKED,
        "readonly_paths": READONLY}


@pytest.mark.parametrize("pod_sc, container_sc, changes", [
    pytest.param({}, {}, {}, id="defaults-unconfined-and-masked"),
    pytest.param({"runAsUser": 1, "runAsGroup": 2}, {"runAsUser": 10},
                 {"run_as_user": {"value": 10}, "run_as_group": {"value": 2}}, id="container-overrides-pod"),
    pytest.param({}, {"capabilities": {"add": ["NET_ADMIN"], "drop": ["ALL"]}},
                 {"capabilities": {"add_capabilities": ["NET_ADMIN"], "drop_capabilities": ["ALL"]}}, id="capabilities"),
    pytest.param({}, {"privileged": True, "readOnlyRootFilesystem": True},
                 {"privileged": True, "readonly_rootfs": True}, id="privileged-readonly"),
    pytest.param({}, {"allowPrivilegeEscalation": False}, {"no_new_privs": True}, id="no-escalation"),
    pytest.param({}, {"allowPrivilegeEscalation": True}, {}, id="escalation-allowed"),
    pytest.param({"seccompProfile": {"type": "RuntimeDefault"}}, {}, {"seccomp": {"profile_type": "RuntimeDefault"}},
                 id="pod-seccomp"),
    pytest.param({"seccompProfile": {"type": "RuntimeDefault"}}, {"seccompProfile": {"type": "Unconfined"}}, {},
                 id="container-seccomp-wins"),
    pytest.param({}, {"seccompProfile": {"type": "Localhost", "localhostProfile": "profiles/audit.json"}},
                 {"seccomp": {"profile_type": "Localhost",
                              "localhost_ref": "/var/lib/kubelet/seccomp/profiles/audit.json"}}, id="localhost"),
    pytest.param({"fsGroup": 5, "supplementalGroups": [6]}, {}, {"supplemental_groups": [5, 6]}, id="groups"),
    pytest.param({}, {"procMount": "Unmasked"}, {"masked_paths": [], "readonly_paths": []}, id="unmasked"),
    pytest.param({"seLinuxOptions": {"level": "s0:c1"}}, {}, {"selinux_options": {"level": "s0:c1"}}, id="selinux"),
])
def test_container_security(pod_sc, container_sc, changes):
    container = {"name": "c", "securityContext": container_sc}
    got = security.container_security(pod([container], sc=pod_sc), container)
    assert got == {**BASE, **changes}
    ParseDict(got, cri_pb2.LinuxContainerSecurityContext())


@pytest.mark.parametrize("sc, image, changes", [
    pytest.param({}, ImageUser(65534, ""), {"run_as_user": {"value": 65534}}, id="image-uid"),
    pytest.param({}, ImageUser(None, "nginx"), {"run_as_username": "nginx"}, id="image-name"),
    pytest.param({"runAsUser": 7}, ImageUser(65534, ""), {"run_as_user": {"value": 7}}, id="spec-wins"),
])
def test_image_user_fills_run_as_user(sc, image, changes):
    container = {"name": "c", "securityContext": sc}
    got = security.container_security(pod([container]), container, image=image)
    assert got == {**BASE, **changes}
    ParseDict(got, cri_pb2.LinuxContainerSecurityContext())


def test_localhost_without_profile_is_refused():
    container = {"name": "c", "securityContext": {"seccompProfile": {"type": "Localhost"}}}
    with pytest.raises(StartError) as caught:
        security.container_security(pod([container]), container)
    assert caught.value.message == "localhostProfile must be set if seccompProfile type is Localhost."


def test_seccomp_default_on():
    assert security.seccomp(pod(), {"name": "c"}, default=True) == {"profile_type": "RuntimeDefault"}


@pytest.mark.parametrize("image, expected", [
    pytest.param({"uid": {"value": "65534"}, "username": ""}, ImageUser(65534, ""), id="message-to-dict"),
    pytest.param({"uid": {"value": 0}}, ImageUser(0, ""), id="root"),
    pytest.param({"username": "nginx"}, ImageUser(None, "nginx"), id="name"),
    pytest.param(None, ImageUser(None, ""), id="absent"),
])
def test_image_user_from_image(image, expected):
    assert ImageUser.from_image(image) == expected


WHERE = '(pod: "web_team(u-1)", container: c)'


@pytest.mark.parametrize("pod_sc, container_sc, image, message", [
    pytest.param({}, {}, ImageUser(0, ""), None, id="not-asked"),
    pytest.param({"runAsNonRoot": True}, {"runAsNonRoot": False}, ImageUser(0, ""), None, id="container-says-no"),
    pytest.param({"runAsNonRoot": True}, {}, ImageUser(0, ""),
                 f"container has runAsNonRoot and image will run as root {WHERE}", id="image-root"),
    pytest.param({}, {"runAsNonRoot": True}, ImageUser(None, ""),
                 f"container has runAsNonRoot and image will run as root {WHERE}", id="no-image-user-is-root"),
    pytest.param({"runAsNonRoot": True}, {}, ImageUser(None, "nginx"),
                 f"container has runAsNonRoot and image has non-numeric user (nginx), cannot verify user is non-root "
                 f"{WHERE}", id="non-numeric"),
    pytest.param({"runAsNonRoot": True}, {}, ImageUser(65534, ""), None, id="image-nobody"),
    pytest.param({"runAsNonRoot": True, "runAsUser": 0}, {}, ImageUser(65534, ""),
                 f"container's runAsUser breaks non-root policy {WHERE}", id="run-as-user-zero"),
    pytest.param({"runAsNonRoot": True}, {"runAsUser": 1000}, ImageUser(0, ""), None, id="run-as-user-set"),
])
def test_verify_run_as_non_root(pod_sc, container_sc, image, message):  # §4.7
    container = {"name": "c", "securityContext": container_sc}
    the_pod = pod([container], sc=pod_sc)
    if message is None:
        security.verify_run_as_non_root(the_pod, container, image)
        return
    with pytest.raises(StartError) as caught:
        security.verify_run_as_non_root(the_pod, container, image)
    assert (caught.value.reason, caught.value.message) == ("CreateContainerConfigError", message)
