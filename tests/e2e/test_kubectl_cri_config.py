"""Configuration, in-cluster access and disruptions through real kubectl 1.33 (and the official Python
client, and curl) on a cri node, one cluster for the module: a Deployment reads a ConfigMap as env and as
a file and an apply reaches the file within a minute; a Secret mounted 0400 has that mode and is not in
the store's database file; the account's namespace file; a missing key's CreateContainerConfigError;
data a pod wrote to a claim read by the next pod on it; kubectl showing a pod evicted for its emptyDir;
`kubectl create secret docker-registry` lets a pod pull from a registry with logins; a pod lists pods
with `load_incluster_config()`; drain stops at a PodDisruptionBudget; deletecollection by selector.
Run it under `flock /tmp/kubus-hostnet.lock` (it changes the host's network)."""
from __future__ import annotations

import base64
import json
import os
import subprocess
import time

import pytest

from actors.kubelet.cri import containerd
from actors.proxy import nftables
from tests.e2e.test_kubectl import binary, kubectl_at, ok
from tests.integration.cri.served import served_cri_cluster
from tests.integration.test_config import database_bytes
from tests.integration.test_deployment import kubus
from testkit.people import token_of
from testkit.registry import private_registry
from testkit.waiting import wait_until

pytestmark = pytest.mark.skipif(not os.path.exists(binary("1.33")) or bool(containerd.available())
                                or not nftables.available(), reason="needs kubectl.1.33, containerd and nft")
BUSYBOX = "busybox:1.35"
CLIENT_IMAGE = "kubus/python-kubernetes:22.6.0-bookworm"
LOGIN = ("puller", "s3cret-pull")
SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
LIST_PODS = ("from kubernetes import client, config; config.load_incluster_config(); "
             "pods = client.CoreV1Api().list_namespaced_pod('default').items; "
             "print(' '.join(sorted(p.metadata.name for p in pods)))")


@pytest.fixture(scope="module")
def kube(amqp_url, tmp_path_factory, request):
    """(kubectl as admin, the bus client, the procs, the settings, the gateway's (url, ca), the private
    registry's host): a cri node-1 with deployments, replica sets, the disruption and persistent-volume
    controllers, the local-path provisioner, the proxy and the gateway, its containerd pulling from a
    registry that asks for logins too."""
    with private_registry(tmp_path_factory.mktemp("private"), LOGIN) as private, \
            served_cri_cluster(amqp_url, tmp_path_factory, request, {"KUBUS_REGISTRY_HOSTS": private,
                                                                     "KUBUS_EVICTION_MONITORING_INTERVAL": "1"},
                               _more_actors) as shared:
        kubectl = kubectl_at("1.33", shared.tmp, shared.url, shared.ca, token_of(shared.settings, "admin"))
        yield kubectl, shared.client, shared.procs, shared.settings, (shared.url, shared.ca), private.split("://", 1)[1]


def _more_actors(procs) -> None:
    for name in ("deployment", "replicaset", "disruption", "persistentvolume"):
        procs.start("actors.controllers", name, label=f"{name}-controller")
    procs.start("actors.localpath", label="local-path")


def _apply(kubectl, *objects: dict) -> None:
    ok(kubectl("apply", "-f", "-", stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": list(objects)})))


def _deployment(name: str, replicas: int, container: dict, volumes: list[dict] = ()) -> dict:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"terminationGracePeriodSeconds": 1, "volumes": list(volumes),
                                           "containers": [{"name": "main", "image": BUSYBOX, **container}]}}}}


def _pod(name: str, container: dict, volumes: list[dict] = (), **spec) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 1, "volumes": list(volumes),
                     "containers": [{"name": "main", "image": BUSYBOX, **container}], **spec}}


def _pod_of(kubectl, app: str) -> str:
    return ok(kubectl("get", "pods", "-l", f"app={app}", "-o", "jsonpath={.items[0].metadata.name}"))


def _jsonpath(kubectl, kind_name: str, path: str) -> str:
    result = kubectl("get", kind_name, "-o", f"jsonpath={path}")
    return result.stdout if result.returncode == 0 else ""


def test_a_deployment_reads_a_configmap_as_env_and_file_and_an_apply_reaches_the_file(kube):
    kubectl = kube[0]
    ok(kubectl("create", "configmap", "app", "--from-literal=MODE=fast", "--from-literal=app.conf=one"))
    container = {"command": ["sleep", "3600"], "volumeMounts": [{"name": "cfg", "mountPath": "/cfg"}],
                 "env": [{"name": "MODE", "valueFrom": {"configMapKeyRef": {"name": "app", "key": "MODE"}}}]}
    _apply(kubectl, _deployment("app", 1, container, [{"name": "cfg", "configMap": {"name": "app"}}]))
    ok(kubectl("rollout", "status", "deployment/app", "--timeout=120s"))
    name = _pod_of(kubectl, "app")
    assert ok(kubectl("exec", name, "--", "sh", "-c", "echo $MODE; cat /cfg/app.conf")) == "fast\none"
    edited = ok(kubectl("create", "configmap", "app", "--from-literal=MODE=fast", "--from-literal=app.conf=two",
                        "--dry-run=client", "-o", "json"))
    ok(kubectl("apply", "-f", "-", stdin=edited))
    applied = time.monotonic()
    wait_until(lambda: kubectl("exec", name, "--", "cat", "/cfg/app.conf").stdout == "two", 60, 0.2,
               what="the applied ConfigMap in the mounted file")
    print(f"ConfigMap apply to the file in the pod: {time.monotonic() - applied:.1f} s")
    assert ok(kubectl("exec", name, "--", "sh", "-c", "echo $MODE")) == "fast\n"  # env is read once, at start


def test_a_secret_mounted_0400_has_that_mode_is_not_stored_in_clear_and_the_account_namespace_is_there(kube):
    kubectl, settings = kube[0], kube[3]
    value = "hush-" + os.urandom(6).hex()
    ok(kubectl("create", "secret", "generic", "creds", f"--from-literal=password={value}"))
    volumes = [{"name": "sec", "secret": {"secretName": "creds", "defaultMode": 0o400}}]
    _apply(kubectl, _pod("reader", {"command": ["sleep", "3600"],
                                    "volumeMounts": [{"name": "sec", "mountPath": "/sec"}]}, volumes))
    ok(kubectl("wait", "--for=condition=Ready", "pod/reader", "--timeout=90s"))
    assert ok(kubectl("exec", "reader", "--", "stat", "-L", "-c", "%a", "/sec/password")) == "400\n"
    assert ok(kubectl("exec", "reader", "--", "cat", "/sec/password")) == value
    assert ok(kubectl("exec", "reader", "--", "cat", f"{SA_DIR}/namespace")) == "default"
    stored = database_bytes(settings)
    assert stored and value.encode() not in stored and base64.b64encode(value.encode()) not in stored


def test_a_missing_key_blocks_the_container_with_kubernetes_message(kube):
    kubectl = kube[0]
    ok(kubectl("create", "configmap", "partial", "--from-literal=present=yes"))
    env = [{"name": "K", "valueFrom": {"configMapKeyRef": {"name": "partial", "key": "absent"}}}]
    _apply(kubectl, _pod("blocked", {"command": ["sh", "-c", "echo $K"], "env": env}))
    wait_until(lambda: "CreateContainerConfigError" in kubectl("get", "pod", "blocked").stdout, 60,
               what="kubectl get pod showing CreateContainerConfigError")
    row = ok(kubectl("get", "pod", "blocked")).splitlines()[1].split()
    assert row[:3] == ["blocked", "0/1", "CreateContainerConfigError"], row
    message = _jsonpath(kubectl, "pod/blocked", "{.status.containerStatuses[0].state.waiting.message}")
    assert message == "couldn't find key absent in ConfigMap default/partial"


def test_data_a_pod_wrote_to_a_claim_is_read_by_the_next_pod_on_it(kube):
    kubectl = kube[0]
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data"},
             "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "64Mi"}}}}
    volumes = [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]
    mounts = [{"name": "d", "mountPath": "/data"}]
    _apply(kubectl, claim, _pod("claim-writer", {"command": ["sh", "-c", "echo kept > /data/note"],
                                           "volumeMounts": mounts}, volumes))
    wait_until(lambda: _jsonpath(kubectl, "pod/claim-writer", "{.status.phase}") == "Succeeded", 90,
               what="the writer to finish")
    assert ok(kubectl("get", "pvc", "data", "-o", "jsonpath={.status.phase}")) == "Bound"
    ok(kubectl("delete", "pod", "claim-writer"))
    _apply(kubectl, _pod("claim-reader", {"command": ["cat", "/data/note"], "volumeMounts": mounts}, volumes))
    wait_until(lambda: _jsonpath(kubectl, "pod/claim-reader", "{.status.phase}") == "Succeeded", 90,
               what="the reader to finish")
    assert ok(kubectl("logs", "claim-reader")) == "kept\n"


def test_kubectl_shows_a_pod_evicted_for_its_emptydir(kube):
    kubectl = kube[0]
    script = "dd if=/dev/zero of=/scratch/blob bs=1024 count=2048; sleep 3600"
    _apply(kubectl, _pod("hoarder", {"command": ["sh", "-c", script],
                                     "volumeMounts": [{"name": "scratch", "mountPath": "/scratch"}]},
                         [{"name": "scratch", "emptyDir": {"sizeLimit": "1Mi"}}]))
    ended = "{.status.phase} {.status.reason} {.status.containerStatuses[0].state.terminated.reason}"
    wait_until(lambda: _jsonpath(kubectl, "pod/hoarder", ended) == "Failed Evicted Error", 90,
               what="the pod Failed as Evicted and its SIGKILLed container's end reported")
    row = ok(kubectl("get", "pod", "hoarder")).splitlines()[1].split()
    # kubectl prints a terminated container's reason over the pod's (printPod), as for a real kubelet's evicted
    # pod: Evicted shows only until the container's end is reported — too short a moment to wait for
    assert row[:3] == ["hoarder", "0/1", "Error"], row
    described = ok(kubectl("describe", "pod", "hoarder"))
    assert 'Message:          Usage of EmptyDir volume "scratch" exceeds the limit "1Mi".' in described, described
    assert "Warning  Evicted" in described, described


def test_a_docker_registry_secret_lets_a_pod_pull_from_a_registry_with_logins(kube):
    kubectl, host = kube[0], kube[5]
    ok(kubectl("create", "secret", "docker-registry", "regcred", f"--docker-server={host}",
               f"--docker-username={LOGIN[0]}", f"--docker-password={LOGIN[1]}"))
    assert ok(kubectl("get", "secret", "regcred", "-o", "jsonpath={.type}")) == "kubernetes.io/dockerconfigjson"
    _apply(kubectl, _pod("pulled", {"image": f"{host}/private/busybox:1.35", "command": ["echo", "pulled"]},
                         imagePullSecrets=[{"name": "regcred"}]))
    wait_until(lambda: _jsonpath(kubectl, "pod/pulled", "{.status.phase}") == "Succeeded", 90,
               what="the pod of the private image to succeed")
    assert ok(kubectl("logs", "pulled")) == "pulled\n"


def test_a_pod_lists_pods_with_load_incluster_config(kube):
    kubectl = kube[0]
    ok(kubectl("create", "role", "pod-reader", "--verb=list", "--resource=pods"))
    ok(kubectl("create", "rolebinding", "pod-reader", "--role=pod-reader", "--serviceaccount=default:default"))
    ok(kubectl("run", "incluster", f"--image={CLIENT_IMAGE}", "--restart=Never", "--", "python3", "-c", LIST_PODS))
    wait_until(lambda: _jsonpath(kubectl, "pod/incluster", "{.status.phase}") in ("Succeeded", "Failed"), 90,
               what="the in-cluster script to finish")
    listed = ok(kubectl("logs", "incluster"))
    assert _jsonpath(kubectl, "pod/incluster", "{.status.phase}") == "Succeeded", listed
    assert "incluster" in listed.split(), listed


def test_drain_stops_at_a_pod_disruption_budget(kube):
    kubectl, procs = kube[0], kube[2]
    _apply(kubectl, _deployment("guarded", 2, {"command": ["sleep", "3600"]}))
    ok(kubectl("create", "pdb", "guarded", "--selector=app=guarded", "--min-available=2"))
    ok(kubectl("rollout", "status", "deployment/guarded", "--timeout=120s"))
    wait_until(lambda: _jsonpath(kubectl, "pdb/guarded", "{.status.currentHealthy}") == "2", 30,
               what="the budget counting both pods")
    lines = ok(kubectl("get", "pdb", "guarded")).splitlines()
    assert lines[0].split() == ["NAME", "MIN", "AVAILABLE", "MAX", "UNAVAILABLE", "ALLOWED", "DISRUPTIONS", "AGE"]
    assert lines[1].split()[:4] == ["guarded", "2", "N/A", "0"], lines
    drained = kubectl("drain", "node-1", "--pod-selector=app=guarded", "--timeout=4s")
    try:
        assert drained.returncode != 0, drained.stdout
        assert "node/node-1 cordoned" in drained.stdout
        assert "Cannot evict pod as it would violate the pod's disruption budget." in drained.stderr, drained.stderr
        assert 'error: unable to drain node "node-1"' in drained.stderr, drained.stderr
        assert "global timeout reached: 4s" in drained.stderr, drained.stderr
    finally:
        ok(kubectl("uncordon", "node-1"))
    assert _jsonpath(kubectl, "deployment/guarded", "{.status.availableReplicas}") == "2"
    described = kubus(procs, "describe", "pdb", "guarded")
    assert described.returncode == 0, described.stderr
    assert "Min available:  2" in described.stdout and "Selector:     app=guarded" in described.stdout
    assert "    Allowed disruptions:  0" in described.stdout and "    Total:                2" in described.stdout


def test_deletecollection_through_the_python_client_and_curl(kube):
    from kubernetes import client as k8s

    kubectl, settings, (url, ca) = kube[0], kube[3], kube[4]
    nowhere = {"nodeSelector": {"kubus.io/none": "x"}}
    for i, batch in enumerate(("one", "one", "two", "two", "three")):
        pod = _pod(f"batch-{i}", {"command": ["true"]}, **nowhere)
        pod["metadata"]["labels"] = {"batch": batch}
        _apply(kubectl, pod)
    config = k8s.Configuration(host=url, api_key={"authorization": f"Bearer {token_of(settings, 'admin')}"})
    config.ssl_ca_cert = str(ca)
    with k8s.ApiClient(config) as api:
        k8s.CoreV1Api(api).delete_collection_namespaced_pod("default", label_selector="batch=one")
    curl = subprocess.run(["curl", "-sS", "--cacert", str(ca), "-X", "DELETE", "-H",
                           f"Authorization: Bearer {token_of(settings, 'admin')}",
                           f"{url}/api/v1/namespaces/default/pods?labelSelector=batch%3Dtwo"],
                          capture_output=True, text=True, timeout=30)
    answer = json.loads(curl.stdout)
    assert answer["kind"] == "PodList" and sorted(p["metadata"]["name"] for p in answer["items"]) == \
        ["batch-2", "batch-3"], curl.stdout[:500]
    by_field = subprocess.run(["curl", "-sS", "--cacert", str(ca), "-X", "DELETE", "-H",
                               f"Authorization: Bearer {token_of(settings, 'admin')}",
                               f"{url}/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dbatch-3"],
                              capture_output=True, text=True, timeout=30)
    assert json.loads(by_field.stdout)["items"] == [], by_field.stdout[:500]  # already gone: nothing matched
    left = wait_until(lambda: (names := ok(kubectl("get", "pods", "-l", "batch", "-o", "name")).split()) == \
                      ["pod/batch-4"] and names, 30, what="only the third batch left")
    assert left == ["pod/batch-4"]
