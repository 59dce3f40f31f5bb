"""A kopf operator (tests/e2e/kopf_operator.py) as a real process against kubus through the
gateway: it sees Pods and Deployments created, writes annotations, puts its finalizer on a pod and
takes it off when the pod is deleted (k8s-rest-api.md §6.4)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.e2e.conftest import kubectl_for, token_of
from tests.helpers import ROOT, wait_until

SEEN = "kubus.test/seen-by"
FINALIZER = "kopf.zalando.org/KopfFinalizerMarker"


@pytest.fixture
def operator(cluster, settings, gateway, tmp_path):
    kubeconfig = kubectl_for(tmp_path, *gateway, token_of(settings, "admin")).argv()[1].split("=", 1)[1]
    log = open(tmp_path / "kopf.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "kopf", "run", "--standalone", "-n", "default",
                             "tests/e2e/kopf_operator.py"], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                            env={"KUBECONFIG": kubeconfig, "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    yield proc
    proc.terminate()
    proc.wait(30)
    log.close()
    print((tmp_path / "kopf.log").read_text()[-4000:])


def annotations(obj: dict) -> dict:
    return obj["metadata"].get("annotations") or {}


def test_kopf_sees_objects_writes_annotations_and_releases_its_finalizer(cluster, operator):
    cluster.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "watched", "labels": {"kopf": "yes"}},
                    "spec": {"containers": [{"name": "c", "image": "busybox"}]}}, namespace="default")
    cluster.create({"apiVersion": "apps/v1", "kind": "Deployment",
                    "metadata": {"name": "web", "labels": {"kopf": "yes"}},
                    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                             "template": {"metadata": {"labels": {"app": "web"}},
                                          "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}},
                   namespace="default")
    pod = wait_until(lambda: (p := cluster.get("Pod", "watched", "default")) and SEEN in annotations(p) and p, 60,
                     what="kopf's annotation on the pod")
    assert annotations(pod)[SEEN] == "kopf:watched"
    assert FINALIZER in pod["metadata"]["finalizers"]
    deployment = wait_until(lambda: (d := cluster.get("Deployment", "web", "default")) and SEEN in annotations(d)
                            and d, 60, what="kopf's annotation on the deployment")
    assert annotations(deployment)[SEEN] == "kopf:web:2"

    cluster.delete("Pod", "watched", "default")
    assert cluster.get("Pod", "watched", "default")["metadata"]["deletionTimestamp"]  # held by the finalizer

    def gone() -> bool:
        try:
            cluster.get("Pod", "watched", "default")
            return False
        except Exception as exc:
            return "NotFound" in str(exc) or "not found" in str(exc)
    wait_until(gone, 60, what="kopf to release the pod")
    assert operator.poll() is None, "the operator exited"
