"""CVE-2017-1002101's attack on a real node: an init container plants `evil -> <a host directory>` in an
emptyDir it may write; the app container mounts the emptyDir's subPath `evil`. The kubelet resolved the
subPath on the host, so containerd bind-mounted the host's directory into the pod, writable: the pod read
the host's file and wrote its own. Now the subPath must stay in its volume: the container waits, never runs,
and the host's directory is as it was."""
from __future__ import annotations

from tests.integration.cri.test_cri_pods import BUSYBOX, status
from testkit.waiting import wait_until


def test_a_subpath_through_a_planted_symlink_reaches_nothing_of_the_host(cri_cluster, tmp_path):
    host = tmp_path / "host-only"
    host.mkdir(mode=0o755)
    (host / "secret").write_text("the host's own\n")
    plant = {"name": "plant", "image": BUSYBOX, "command": ["ln", "-s", str(host), "/data/evil"],
             "volumeMounts": [{"name": "scratch", "mountPath": "/data"}]}
    app = {"name": "app", "image": BUSYBOX, "command": ["sh", "-c", "cat /x/secret; echo pwned > /x/written"],
           "volumeMounts": [{"name": "scratch", "mountPath": "/x", "subPath": "evil"}]}
    cri_cluster.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "escape"},
                        "spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
                                 "volumes": [{"name": "scratch", "emptyDir": {}}],
                                 "initContainers": [plant], "containers": [app]}})

    def refused():
        app_status = (status(cri_cluster, "escape").get("containerStatuses") or [{}])[0]
        waiting = (app_status.get("state") or {}).get("waiting") or {}
        return "not within volume path" in (waiting.get("message") or "") and waiting

    waiting = wait_until(refused, 90, what="the app container refused its subPath")
    assert str(host) in waiting["message"]
    assert sorted(p.name for p in host.iterdir()) == ["secret"]  # nothing written to the host's directory
    terminated = (status(cri_cluster, "escape").get("initContainerStatuses") or [{}])[0]["state"]["terminated"]
    assert terminated["exitCode"] == 0  # the plant itself is allowed: it is the pod's own volume
