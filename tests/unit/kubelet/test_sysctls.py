"""The kubelet's sysctl admission (allowlist.go): the safe set, allowed unsafe names and patterns, the
host namespaces, Kubernetes' messages."""
from __future__ import annotations

import pytest

from actors.kubelet.sysctls import Allowlist, normalize


def pod(*names: str, **spec) -> dict:
    return {"spec": {"securityContext": {"sysctls": [{"name": n, "value": "1"} for n in names]}, **spec}}


@pytest.mark.parametrize("given, unsafe, verdict", [
    pytest.param(pod("net.ipv4.tcp_syncookies"), (), None, id="safe"),
    pytest.param(pod("kernel.msgmax"), (), ("SysctlForbidden", 'forbidden sysctl: "kernel.msgmax" not allowlisted'),
                 id="unsafe"),
    pytest.param(pod("kernel.msgmax"), ("kernel.msg*",), None, id="allowed-pattern"),
    pytest.param(pod("net.core.somaxconn"), ("net.core.somaxconn",), None, id="allowed-name"),
    pytest.param(pod("net.ipv4.tcp_syncookies", hostNetwork=True), (),
                 ("SysctlForbidden", 'forbidden sysctl: "net.ipv4.tcp_syncookies" not allowed with host net enabled'),
                 id="host-network"),
    pytest.param(pod("kernel.shm_rmid_forced", hostIPC=True), (),
                 ("SysctlForbidden", 'forbidden sysctl: "kernel.shm_rmid_forced" not allowed with host ipc enabled'),
                 id="host-ipc"),
    pytest.param(pod("vm.swappiness"), ("vm.swappiness",),
                 ("SysctlForbidden", 'forbidden sysctl: "vm.swappiness" not allowlisted'), id="not-namespaced"),
    pytest.param({"spec": {}}, (), None, id="none"),
])
def test_admit(given, unsafe, verdict):
    assert Allowlist(unsafe).admit(given) == verdict


def test_normalize_slashes():
    assert normalize("net/ipv4/tcp_syncookies") == "net.ipv4.tcp_syncookies"
    assert normalize("net.ipv4.conf.eno2/100.rp_filter") == "net.ipv4.conf.eno2/100.rp_filter"
