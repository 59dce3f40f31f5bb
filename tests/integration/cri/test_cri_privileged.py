"""What a pod may ask of its node on real containers: `privileged` (every capability the host has, its
devices, no seccomp, /sys read-write — only where Pod Security allows it), `sysctls` (the safe set;
others refused at admission as SysctlForbidden), `hostPort` (CNI's portmap: the host's port reaches
the container). One cri cluster for the module: each test's pods (and namespace) named apart."""
from __future__ import annotations

from pathlib import Path

import pytest

from api.status import StatusError
from tests.integration.cri.test_cri_pods import pod, state, status
from testkit.hosts import free_port
from testkit.waiting import wait_until
from testkit.webserver import body_of

REPORT = ("grep -E '^(CapEff|Seccomp):' /proc/self/status; "
          "awk '$2 == \"/sys\" {split($4, o, \",\"); print \"Sys:\\t\" o[1]}' /proc/mounts; ls /dev")


def report(client, name: str, container: str | None = None) -> dict[str, str]:
    wait_until(lambda: status(client, name).get("phase") == "Succeeded", 60, what=f"{name} to finish")
    lines = client.logs(name, container=container)["text"].splitlines()
    found = dict(line.split(":\t", 1) for line in lines[:3])
    return {"caps": found["CapEff"], "seccomp": found["Seccomp"], "sys": found["Sys"], "dev": " ".join(lines[3:])}


def host_bounding_set() -> str:
    line = next(x for x in Path("/proc/self/status").read_text().splitlines() if x.startswith("CapBnd:"))
    return line.split(":\t", 1)[1]


@pytest.fixture
def node(cri_module):
    """The module's cri cluster's client."""
    return cri_module.client


def test_a_privileged_container_has_the_hosts_capabilities_devices_and_sys_and_no_seccomp(node):
    """As Kubernetes gives it (containerd ≥ 2.1, CRI-O): every capability, the host's devices, no seccomp, /sys
    read-write (its sandbox's sysfs too: privsysfs.py); a plain container gets the default set, seccomp
    filtering and /sys read-only, beside a privileged one in its pod too."""
    mixed = pod("root", REPORT, securityContext={"privileged": True})
    mixed["spec"]["containers"].append({"name": "plain", "image": "busybox:1.35", "command": ["sh", "-c", REPORT]})
    node.create(mixed)
    privileged, plain = report(node, "root", "main"), report(node, "root", "plain")
    device = next(d for d in ("kmsg", "loop-control", "mem", "tty0") if Path("/dev", d).exists())
    assert (privileged["caps"], privileged["seccomp"], privileged["sys"]) == (host_bounding_set(), "0", "rw"), \
        privileged
    assert device in privileged["dev"].split() and device not in plain["dev"].split(), (privileged, plain)
    assert (plain["caps"], plain["seccomp"], plain["sys"]) == ("00000000a80425fb", "2", "ro"), plain


def test_pod_security_baseline_refuses_a_privileged_pod(node):
    node.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {
        "name": "tenant", "labels": {"pod-security.kubernetes.io/enforce": "baseline"}}})
    with pytest.raises(StatusError) as refused:
        node.create(pod("root", "true", securityContext={"privileged": True}), namespace="tenant")
    assert "privileged" in str(refused.value), refused.value


def test_safe_sysctls_are_set_and_an_unsafe_one_is_sysctl_forbidden(node):
    tuned = pod("tuned", "cat /proc/sys/net/ipv4/tcp_syncookies /proc/sys/net/ipv4/ip_local_port_range")
    tuned["spec"]["securityContext"] = {"sysctls": [{"name": "net.ipv4.tcp_syncookies", "value": "0"},
                                                    {"name": "net.ipv4.ip_local_port_range", "value": "20000 30000"}]}
    unsafe = pod("unsafe", "true")
    unsafe["spec"]["securityContext"] = {"sysctls": [{"name": "kernel.msgmax", "value": "65536"}]}
    node.create(tuned)
    node.create(unsafe)
    wait_until(lambda: state(node, "tuned", "terminated"), 60, what="tuned to finish")
    assert node.logs("tuned")["text"].split() == ["0", "20000", "30000"]
    refused = wait_until(lambda: status(node, "unsafe").get("phase") == "Failed"
                         and status(node, "unsafe"), 30, what="unsafe refused")
    assert (refused["reason"], refused["message"]) == ("SysctlForbidden",
                                                       'forbidden sysctl: "kernel.msgmax" not allowlisted'), refused


def test_a_host_port_reaches_the_container_from_the_host(node):
    port = free_port()
    node.create(pod("web", "mkdir -p /tmp/www && echo hello from the pod > /tmp/www/index.html && "
                                  "exec httpd -f -p 8080 -h /tmp/www", policy="Always",
                           ports=[{"containerPort": 8080, "hostPort": port}]))
    wait_until(lambda: state(node, "web", "running"), 60, what="web running")
    answer = wait_until(lambda: body_of(f"http://127.0.0.1:{port}/"), 30, what=f"127.0.0.1:{port} to answer")
    assert answer == "hello from the pod\n"
