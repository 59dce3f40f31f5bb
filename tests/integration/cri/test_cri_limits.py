"""What a container may not do, proved on real containers: a CPU limit holds in its cgroup (and the
cgroup's numbers are qos.py's), a read-only root filesystem, dropped capabilities, no new
privileges and the user and group asked for hold inside. One cri cluster for the module, its pods named
apart; the burner's test comes last, so that it burns through no other test."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from actors.kubelet.cri import qos
from tests.integration.cri.test_cri_pods import container, pod, state
from testkit.waiting import wait_until

CGROUPS = Path("/sys/fs/cgroup")
PROBE = ("if touch /probe 2>/dev/null; then echo root-writable; else echo root-read-only; fi; "
         "grep -E '^(CapEff|NoNewPrivs)' /proc/self/status | tr -s '\\t' ' '; id")
DEFAULT_CAPS = "00000000a80425fb"  # Kubernetes' (containerd's) default set: CHOWN DAC_OVERRIDE FSETID FOWNER
# MKNOD NET_RAW SETGID SETUID SETFCAP SETPCAP NET_BIND_SERVICE SYS_CHROOT KILL AUDIT_WRITE


def cgroup_of(controller: str, container_id: str) -> Path:
    """The container's cgroup directory of one controller (cgroup v1, cgroupfs paths under /kubepods)."""
    found = list((CGROUPS / controller / "kubepods").glob(f"**/*{container_id}"))
    assert len(found) == 1, f"cgroup of {container_id} under {controller}: {found}"
    return found[0]


def cpu_share_of_a_core(usage_file: Path, seconds: float) -> float:
    before, start = int(usage_file.read_text()), time.monotonic()
    time.sleep(seconds)  # the measurement window itself, not a wait for something to happen
    return (int(usage_file.read_text()) - before) / 1e9 / (time.monotonic() - start)


@pytest.fixture
def node(cri_module):
    """The module's cri cluster's client."""
    return cri_module.client


CONTAINERS = [  # name, securityContext, the probe's lines
    ("plain", {}, ["root-writable", f"CapEff: {DEFAULT_CAPS}", "NoNewPrivs: 0", "uid=0(root) gid=0(root)"]),
    ("readonly", {"readOnlyRootFilesystem": True},
     ["root-read-only", f"CapEff: {DEFAULT_CAPS}", "NoNewPrivs: 0", "uid=0(root) gid=0(root)"]),
    ("dropped", {"capabilities": {"drop": ["ALL"]}, "allowPrivilegeEscalation": False},
     ["root-writable", "CapEff: 0000000000000000", "NoNewPrivs: 1", "uid=0(root) gid=0(root)"]),
    ("user", {"runAsUser": 1000, "runAsGroup": 3000},
     ["root-read-only", "CapEff: 0000000000000000", "NoNewPrivs: 0", "uid=1000 gid=3000"]),
]


def test_the_security_context_holds_inside(node):
    spec = pod("guarded", PROBE)
    spec["spec"]["containers"] = [{"name": name, "image": "busybox:1.35", "command": ["sh", "-c", PROBE],
                                   "securityContext": context} for name, context, _ in CONTAINERS]
    node.create(spec)
    wait_until(lambda: node.get("Pod", "guarded")["status"].get("phase") == "Succeeded", 60,
               what="every probe container done")
    seen = {name: node.logs("guarded", container=name)["text"].splitlines() for name, _, _ in CONTAINERS}
    wrong = {name: seen[name] for name, _, expected in CONTAINERS
             if seen[name][:3] != expected[:3] or not seen[name][3].startswith(expected[3])}
    assert not wrong, wrong


def test_a_cpu_burner_under_200m_gets_a_fifth_of_a_core_and_its_cgroup_says_so(node):
    limits = {"cpu": "200m", "memory": "64Mi"}
    node.create(pod("burner", "while :; do :; done", policy="Always", resources={"limits": limits}))
    wait_until(lambda: state(node, "burner", "running"), 60, what="the burner running")
    runtime_id = container(node, "burner")["containerID"].removeprefix("containerd://")
    cpu, memory = cgroup_of("cpu", runtime_id), cgroup_of("memory", runtime_id)
    assert int((cpu / "cpu.cfs_quota_us").read_text()) == qos.milli_cpu_to_quota(200) == 20000
    assert int((cpu / "cpu.cfs_period_us").read_text()) == qos.QUOTA_PERIOD == 100000
    assert int((cpu / "cpu.shares").read_text()) == qos.milli_cpu_to_shares(200) == 204
    assert int((memory / "memory.limit_in_bytes").read_text()) == 64 << 20
    assert str(cpu.parent).endswith(qos.pod_cgroup_parent(node.get("Pod", "burner")))
    share = cpu_share_of_a_core(cgroup_of("cpuacct", runtime_id) / "cpuacct.usage", 3.0)
    assert 0.05 < share <= 0.22, f"the burner used {share:.3f} of a core"
