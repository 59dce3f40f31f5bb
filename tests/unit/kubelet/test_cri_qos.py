"""QoS class, cgroup parent, OOM score and cgroup values of a pod (k8s-containers.md §4.8)."""
from __future__ import annotations

import pytest
from google.protobuf.json_format import ParseDict
from hypothesis import given
from hypothesis import strategies as st

from actors.kubelet.cri import qos
from actors.kubelet.cri.api import cri_pb2

GI = 2**30
CAPACITY = 8 * GI


def res(limits=None, requests=None, **extra):
    resources = {}
    if limits is not None:
        resources["limits"] = limits
    if requests is not None:
        resources["requests"] = requests
    return {"name": extra.pop("name", "c"), "resources": resources, **extra}


def pod(*containers, inits=(), uid="u1", **spec):
    return {"metadata": {"uid": uid, "name": "p", "namespace": "ns"},
            "spec": {"containers": list(containers), "initContainers": list(inits), **spec}}


FULL = {"cpu": "500m", "memory": "256Mi"}


@pytest.mark.parametrize("the_pod, expected", [
    pytest.param(pod(res()), "BestEffort", id="nothing"),
    pytest.param(pod(res(limits={"ephemeral-storage": "1Gi"})), "BestEffort", id="other-resources-only"),
    pytest.param(pod(res(limits=FULL)), "Guaranteed", id="limits-default-requests"),
    pytest.param(pod(res(limits=FULL, requests=FULL)), "Guaranteed", id="requests-equal-limits"),
    pytest.param(pod(res(limits=FULL, requests={"cpu": "250m"})), "Burstable", id="request-below-limit"),
    pytest.param(pod(res(limits={"cpu": "1"})), "Burstable", id="cpu-only"),
    pytest.param(pod(res(requests={"memory": "1Gi"})), "Burstable", id="request-only"),
    pytest.param(pod(res(limits=FULL), res(name="d")), "Burstable", id="one-container-without"),
    pytest.param(pod(res(limits=FULL), inits=[res(limits=FULL, name="i")]), "Guaranteed", id="init-guaranteed"),
    pytest.param(pod(res(limits=FULL), inits=[res(name="i")]), "Burstable", id="init-without-limits"),
    pytest.param(pod(res(limits={"cpu": "0", "memory": "0"})), "BestEffort", id="zero-limits"),
])
def test_qos_class(the_pod, expected):
    assert qos.qos_class(the_pod) == expected


@pytest.mark.parametrize("the_pod, parent", [
    pytest.param(pod(res(limits=FULL), uid="abc"), "/kubepods/podabc", id="guaranteed"),
    pytest.param(pod(res(requests={"cpu": "1"}), uid="abc"), "/kubepods/burstable/podabc", id="burstable"),
    pytest.param(pod(res(), uid="abc"), "/kubepods/besteffort/podabc", id="besteffort"),
])
def test_pod_cgroup_parent(the_pod, parent):
    assert qos.pod_cgroup_parent(the_pod) == parent


BURST = pod(res(requests={"memory": "2Gi"}), res(name="small", requests={"memory": "1Mi"}),
            res(name="none", requests={"cpu": "1"}))


@pytest.mark.parametrize("the_pod, index, expected", [
    pytest.param(pod(res(limits=FULL)), 0, -997, id="guaranteed"),
    pytest.param(pod(res()), 0, 1000, id="besteffort"),
    pytest.param(BURST, 0, 750, id="burstable-formula"),        # 1000 - 1000*2Gi/8Gi
    pytest.param(BURST, 1, 999, id="burstable-tiny-request"),   # 1000 - 0 → 999
    pytest.param(BURST, 2, 999, id="burstable-no-memory"),
    pytest.param(pod(res(requests={"memory": "8Gi"})), 0, 3, id="clamped-low"),
    pytest.param(pod(res(), priority=2000001000, priorityClassName="system-node-critical"), 0, -997,
                 id="node-critical"),
    pytest.param(pod(res(), priorityClassName="system-node-critical"), 0, 1000, id="class-without-priority"),
])
def test_oom_score_adj(the_pod, index, expected):
    container = the_pod["spec"]["containers"][index]
    assert qos.oom_score_adj(the_pod, container, CAPACITY) == expected


def test_sidecar_oom_no_higher_than_smallest_regular():
    sidecar = res(name="side", restartPolicy="Always", requests={"memory": "1Mi"})
    the_pod = pod(res(requests={"memory": "4Gi"}), inits=[sidecar])
    assert qos.oom_score_adj(the_pod, sidecar, CAPACITY) == 500
    assert qos.oom_score_adj(the_pod, the_pod["spec"]["containers"][0], CAPACITY) == 500


@pytest.mark.parametrize("container, expected", [
    pytest.param(res(), {"cpu_shares": 2, "cpu_period": 100000, "cpu_quota": 0, "oom_score_adj": 1000},
                 id="besteffort"),
    pytest.param(res(limits={"cpu": "200m", "memory": "64Mi"}),
                 {"cpu_shares": 204, "cpu_period": 100000, "cpu_quota": 20000, "memory_limit_in_bytes": 67108864,
                  "oom_score_adj": -997}, id="guaranteed-200m"),
    pytest.param(res(limits={"cpu": "1"}, requests={"cpu": "250m"}),
                 {"cpu_shares": 256, "cpu_period": 100000, "cpu_quota": 100000, "oom_score_adj": 999},
                 id="burstable-request-and-limit"),
    pytest.param(res(limits={"cpu": "1m"}),
                 {"cpu_shares": 2, "cpu_period": 100000, "cpu_quota": 1000, "oom_score_adj": 999},
                 id="quota-floor-and-min-shares"),
    pytest.param(res(requests={"cpu": "1000"}),
                 {"cpu_shares": 262144, "cpu_period": 100000, "cpu_quota": 0, "oom_score_adj": 999},
                 id="max-shares"),
])
def test_container_resources(container, expected):
    got = qos.container_resources(pod(container), container, CAPACITY)
    assert got == expected
    ParseDict(got, cri_pb2.LinuxContainerResources())


@given(st.integers(min_value=0, max_value=10**7))
def test_shares_and_quota_follow_the_formulas(m):
    shares, quota = qos.milli_cpu_to_shares(m), qos.milli_cpu_to_quota(m)
    assert 2 <= shares <= 262144
    if m and 2 < m * 1024 // 1000 < 262144:
        assert shares == m * 1024 // 1000
    assert quota == (0 if m == 0 else max(1000, m * 100))
    container = res(limits={"cpu": f"{m}m"})
    got = qos.container_resources(pod(container), container, CAPACITY)
    assert (got["cpu_shares"], got["cpu_quota"]) == (shares, quota)


@pytest.mark.parametrize("the_pod, expected", [
    pytest.param(pod(res()), {"cpu_shares": 2}, id="besteffort"),
    pytest.param(pod(res(limits=FULL), res(name="d", limits={"cpu": "1", "memory": "1Gi"})),
                 {"cpu_shares": 1536, "cpu_quota": 150000, "cpu_period": 100000,
                  "memory_limit_in_bytes": 256 * 2**20 + GI}, id="guaranteed-sums"),
    pytest.param(pod(res(requests={"cpu": "100m"}), res(name="d", limits={"cpu": "1"})),
                 {"cpu_shares": 1126}, id="burstable-not-all-cpu-limited"),
    pytest.param(pod(res(limits={"cpu": "1"}, requests={"cpu": "100m"})),
                 {"cpu_shares": 102, "cpu_quota": 100000, "cpu_period": 100000}, id="burstable-cpu-limited"),
    pytest.param(pod(res(limits={"memory": "1Gi"}, requests={"memory": "1Mi"})),
                 {"cpu_shares": 2, "memory_limit_in_bytes": GI}, id="burstable-memory-limited"),
    pytest.param(pod(res(limits={"cpu": "1", "memory": "1Gi"}), inits=[res(name="i", limits={"cpu": "2", "memory": "1Gi"})]),
                 {"cpu_shares": 2048, "cpu_quota": 200000, "cpu_period": 100000, "memory_limit_in_bytes": GI},
                 id="init-container-max"),
    pytest.param(pod(res(limits={"cpu": "1", "memory": "1Gi"}),
                     inits=[res(name="s", restartPolicy="Always", limits={"cpu": "1", "memory": "1Gi"})]),
                 {"cpu_shares": 2048, "cpu_quota": 200000, "cpu_period": 100000, "memory_limit_in_bytes": 2 * GI},
                 id="sidecar-adds"),
])
def test_sandbox_resources(the_pod, expected):
    got = qos.sandbox_resources(the_pod)
    assert got == expected
    ParseDict(got, cri_pb2.LinuxContainerResources())
