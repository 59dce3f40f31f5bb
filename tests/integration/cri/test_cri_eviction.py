"""The eviction manager on containerd: a pod whose emptyDir outgrows its sizeLimit is killed and
Failed with reason Evicted and Kubernetes' message (and a Warning Event), its volumes removed (the
disk given back); a pod under its limit runs on. The manager looks each second here
(KUBUS_EVICTION_MONITORING_INTERVAL)."""
from __future__ import annotations

import pytest

from tests.integration.cri.test_cri_volumes import pod, sh, status
from testkit.waiting import wait_until

WRITE = "dd if=/dev/urandom of=/scratch/blob bs=1024 count={kib} 2>/dev/null; echo written; sleep 3600"


@pytest.fixture
def fast_eviction(procs):
    procs.env["KUBUS_EVICTION_MONITORING_INTERVAL"] = "1"


def writer(name: str, kib: int) -> dict:
    mounts = [{"name": "scratch", "mountPath": "/scratch"}]
    return pod(name, [sh("main", WRITE.format(kib=kib), volumeMounts=mounts)],
               [{"name": "scratch", "emptyDir": {"sizeLimit": "1Mi"}}])


def test_an_emptydir_over_its_size_limit_evicts_its_pod(fast_eviction, cri_cluster, settings):
    cri_cluster.create(writer("under", 512))
    wait_until(lambda: "written" in cri_cluster.logs("under")["text"], 90, what="the pod under its limit writing")
    cri_cluster.create(writer("over", 2048))
    evicted = wait_until(lambda: status(cri_cluster, "over").get("reason") == "Evicted"
                         and status(cri_cluster, "over"), 90, what="the pod over its limit evicted")
    assert evicted["message"] == 'Usage of EmptyDir volume "scratch" exceeds the limit "1Mi". '
    wait_until(lambda: status(cri_cluster, "over")["phase"] == "Failed" and
               "terminated" in status(cri_cluster, "over")["containerStatuses"][0]["state"], 30,
               what="its container killed, the pod Failed")
    events = wait_until(lambda: [e for e in cri_cluster.list("Event", "default").items
                                 if e["involvedObject"]["name"] == "over" and e["reason"] == "Evicted"], 10,
                        what="the Evicted event")
    assert (events[0]["type"], events[0]["message"]) == ("Warning", evicted["message"])
    pods = settings.data_dir / "kubelet" / "node-1" / "pods"
    wait_until(lambda: not (pods / cri_cluster.get("Pod", "over")["metadata"]["uid"]).exists(), 30,
               what="the evicted pod's volumes removed")
    assert (pods / cri_cluster.get("Pod", "under")["metadata"]["uid"] / "volumes").is_dir()
    assert status(cri_cluster, "under")["phase"] == "Running"
    assert "reason" not in status(cri_cluster, "under")
