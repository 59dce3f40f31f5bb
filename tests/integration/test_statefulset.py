"""StatefulSets on simulated nodes with the real scheduler, local-path provisioner, volume binder,
EndpointSlice controller, DNS actor, GC and the StatefulSet controller: three replicas come up in
order as web-0..2, each with its own Bound claim `www-web-<i>`, and each answers by name under the
headless Service; a partitioned update rolls only the ordinals at or above the partition and is
recorded as a second ControllerRevision; a scale to 1 removes web-2 and then web-1 and keeps every
claim."""
from __future__ import annotations

import pytest

from actors.controllers.history import HASH_LABEL
from tests.integration.test_dns import query, values
from testkit.hosts import free_port
from testkit.waiting import wait_until


@pytest.fixture
def stateful(cluster, procs):
    port = free_port()
    procs.start("actors.controllers", "persistentvolume", label="pv-controller")
    procs.start("actors.localpath", label="local-path")
    procs.start("actors.scheduler")
    procs.start("actors.kubelet", "--hollow", "2", "--capacity", "cpu=8,memory=16Gi,pods=110")
    procs.start("actors.controllers", "statefulset", label="sts-controller")
    procs.start("actors.controllers", "endpointslice", label="slices")
    procs.start("actors.controllers", "gc", label="gc")
    procs.start("actors.dns", KUBUS_DNS_ADDRESS=f"127.0.0.1:{port}")
    wait_until(lambda: len(cluster.list("Node").items) == 2, 30, what="two nodes")
    wait_until(lambda: cluster.list("StorageClass").items, 30, what="the default class local-path")
    return cluster, port


def statefulset(replicas: int = 3) -> dict:
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"},
            "spec": {"replicas": replicas, "serviceName": "nginx", "selector": {"matchLabels": {"app": "nginx"}},
                     "template": {"metadata": {"labels": {"app": "nginx"}},
                                  "spec": {"terminationGracePeriodSeconds": 0,
                                           "containers": [{"name": "nginx", "image": "nginx:1",
                                                           "volumeMounts": [{"name": "www", "mountPath": "/w"}]}]}},
                     "volumeClaimTemplates": [{"metadata": {"name": "www"},
                                               "spec": {"accessModes": ["ReadWriteOnce"],
                                                        "resources": {"requests": {"storage": "1Gi"}}}}]}}


def headless() -> dict:
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "nginx"},
            "spec": {"clusterIP": "None", "selector": {"app": "nginx"}, "ports": [{"name": "web", "port": 80}]}}


def live(client) -> dict[str, dict]:
    return {p["metadata"]["name"]: p for p in client.list("Pod", "default", label_selector="app=nginx").items}


def up(pod: dict) -> bool:
    status = pod.get("status") or {}
    return status.get("phase") == "Running" and not pod["metadata"].get("deletionTimestamp") and any(
        c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [])


def ordered_until(client, done, invariant, what: str):
    """Poll until `done(pods)`; every look at the pods on the way must keep `invariant(pods)`."""
    broken = []

    def check():
        pods = live(client)
        if not invariant(pods):
            broken.append(sorted(pods))
        return done(pods)
    wait_until(check, 90, what=what)
    assert not broken, f"{what}: out of order: {broken}"


def settled(client, replicas: int, updated: int | None = None) -> dict:
    def check():
        sts = client.get("StatefulSet", "web", "default")
        status = sts.get("status") or {}
        ok = status.get("readyReplicas") == status.get("replicas") == replicas and \
            status.get("observedGeneration") == sts["metadata"]["generation"] and \
            (updated is None or status.get("updatedReplicas") == updated)
        return sts if ok else None
    return wait_until(check, 90, what=f"the set settled at {replicas}")


def test_ordered_pods_with_claims_names_partitioned_update_and_scale_down(stateful):
    client, port = stateful
    client.create(headless(), "default")
    client.create(statefulset(), "default")

    def in_order(pods):  # web-i exists only once every lower ordinal is Running and Ready
        return all(f"web-{j}" in pods and up(pods[f"web-{j}"]) for i in range(3) if f"web-{i}" in pods
                   for j in range(i))
    ordered_until(client, lambda pods: len(pods) == 3 and all(map(up, pods.values())), in_order, "web-0..2 in order")
    pods = live(client)
    for i in range(3):
        claim = wait_until(lambda i=i: (c := client.get("PersistentVolumeClaim", f"www-web-{i}", "default"))
                           and (c.get("status") or {}).get("phase") == "Bound" and c, 30, what=f"www-web-{i} Bound")
        assert claim["spec"]["storageClassName"] == "local-path"
        pod = pods[f"web-{i}"]
        assert pod["spec"]["hostname"] == f"web-{i}" and pod["spec"]["subdomain"] == "nginx"
        assert pod["metadata"]["labels"]["apps.kubernetes.io/pod-index"] == str(i)
        assert {"name": "www", "persistentVolumeClaim": {"claimName": f"www-web-{i}"}} in pod["spec"]["volumes"]
    ip = pods["web-0"]["status"]["podIP"]
    wait_until(lambda: values(query(port, "web-0.nginx.default.svc.cluster.local")) == [ip], 15,
               what="web-0.nginx.default.svc.cluster.local")
    first = settled(client, 3)["status"]["currentRevision"]

    client.patch("StatefulSet", "web", {"spec": {"updateStrategy": {"rollingUpdate": {"partition": 2}},
                                                 "template": {"spec": {"containers": [
                                                     {"name": "nginx", "image": "nginx:2"}]}}}}, "default")
    sts = settled(client, 3, updated=1)
    status = sts["status"]
    assert status["currentRevision"] == first != status["updateRevision"] and status["currentReplicas"] == 2
    images = {n: p["spec"]["containers"][0]["image"] for n, p in live(client).items()}
    assert images == {"web-0": "nginx:1", "web-1": "nginx:1", "web-2": "nginx:2"}
    assert live(client)["web-2"]["metadata"]["labels"][HASH_LABEL] == status["updateRevision"]
    assert sorted(r["revision"] for r in client.list("ControllerRevision", "default").items) == [1, 2]

    client.patch("StatefulSet", "web", {"spec": {"replicas": 1}}, "default")
    ordered_until(client, lambda pods: set(pods) == {"web-0"},
                  lambda pods: "web-1" in pods or "web-2" not in pods, "web-2 then web-1 removed")
    settled(client, 1)
    assert sorted(c["metadata"]["name"] for c in client.list("PersistentVolumeClaim", "default").items) == [
        "www-web-0", "www-web-1", "www-web-2"]


def test_claims_deleted_with_the_set_only_when_the_policy_says_delete(stateful):
    client, _ = stateful
    doomed = statefulset(2)
    doomed["spec"].update(podManagementPolicy="Parallel",
                          persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete", "whenScaled": "Retain"})
    kept = statefulset(1)
    kept["metadata"]["name"], kept["spec"]["selector"] = "keep", {"matchLabels": {"app": "keep"}}
    kept["spec"]["template"]["metadata"]["labels"] = {"app": "keep"}
    client.create(doomed, "default")
    client.create(kept, "default")
    claims = {"www-web-0", "www-web-1", "www-keep-0"}
    wait_until(lambda: {c["metadata"]["name"] for c in client.list("PersistentVolumeClaim", "default").items
                        if (c.get("status") or {}).get("phase") == "Bound"} == claims, 60, what="three Bound claims")
    owners = client.get("PersistentVolumeClaim", "www-web-0", "default")["metadata"]["ownerReferences"]
    assert [(r["kind"], r["name"]) for r in owners] == [("StatefulSet", "web")]
    client.delete("StatefulSet", "web", "default")
    client.delete("StatefulSet", "keep", "default")
    wait_until(lambda: not client.list("Pod", "default").items and not client.list("ControllerRevision",
                                                                                   "default").items,
               60, what="the pods and revisions collected")
    wait_until(lambda: {c["metadata"]["name"] for c in client.list("PersistentVolumeClaim", "default").items}
               == {"www-keep-0"}, 60, what="only the retained claim left")
