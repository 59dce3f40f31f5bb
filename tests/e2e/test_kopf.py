"""A kopf operator (tests/e2e/kopf_operator.py) as a real process against kubus through the
gateway (k8s-rest-api.md §6.4), run as alice with only an operator's Role in the test's namespace:
it lists then watches with bookmarks and a 2 s timeoutSeconds (or streams the initial list with
sendInitialEvents), writes annotations and finalizers with merge and JSON patches (testing the
resourceVersion), posts Events, and releases what it holds when the object is deleted. The tests
share their module's control plane and gateway, each in a namespace of its own."""
from __future__ import annotations

import subprocess
import sys

import pytest

from testkit.people import as_person, token_of
from tests.e2e.conftest import kubeconfig_for
from tests.e2e.kopf_operator import CONDITION, FINALIZER, GUARD, SEEN
from runtime.spawn import ROOT
from testkit.waiting import wait_until

pytestmark = pytest.mark.shared_plane  # one control plane and gateway for the module, a namespace per test

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "watched", "labels": {"kopf": "yes"}},
       "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"kopf": "yes"}},
              "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                       "template": {"metadata": {"labels": {"app": "web"}},
                                    "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}}

RBAC = "rbac.authorization.k8s.io/v1"
OPERATOR_ROLE = {"apiVersion": RBAC, "kind": "Role", "metadata": {"name": "kopf-operator"}, "rules": [
    {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch", "patch"]},
    {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "list", "watch", "patch"]},
    {"apiGroups": [""], "resources": ["pods/status"], "verbs": ["patch"]},
    {"apiGroups": [""], "resources": ["events"], "verbs": ["create"]}]}  # what kopf's documentation grants


@pytest.fixture
def streaming() -> bool:
    """Whether kopf streams its initial lists (a watch with sendInitialEvents) instead of listing."""
    return False


@pytest.fixture
def operator(cluster, settings, gateway, tmp_path, streaming):
    """kopf as alice, with only the operator's Role in the test's namespace; its log is checked for errors
    at the end."""
    as_person(settings, "alice")
    cluster.create(OPERATOR_ROLE)
    cluster.create({"apiVersion": RBAC, "kind": "RoleBinding", "metadata": {"name": "kopf-operator"},
                    "roleRef": {"apiGroup": RBAC.split("/")[0], "kind": "Role", "name": "kopf-operator"},
                    "subjects": [{"apiGroup": RBAC.split("/")[0], "kind": "User", "name": "alice"}]})
    kubeconfig = kubeconfig_for(tmp_path, *gateway, token_of(settings, "alice"))
    path = tmp_path / "kopf.log"
    with open(path, "w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "kopf", "run", "--standalone", "--verbose",
                                 "-n", cluster.namespace, "tests/e2e/kopf_operator.py"], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                env={"KUBECONFIG": str(kubeconfig), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                                     "KOPF_INITIAL_STREAMING": "1" if streaming else "0"})
        yield proc
        proc.terminate()
        proc.wait(30)
    text = path.read_text()
    print(text[-6000:])
    errors = [line for line in text.splitlines() if " ERROR " in line or "Traceback" in line]
    assert not errors, "kopf logged errors:\n" + "\n".join(errors[:20])


def annotations(obj: dict) -> dict:
    return obj["metadata"].get("annotations") or {}


def seen(cluster, kind: str, name: str) -> dict | None:
    obj = cluster.get(kind, name)
    return obj if SEEN in annotations(obj) else None


def gone(cluster, kind: str, name: str) -> bool:
    try:
        cluster.get(kind, name)
        return False
    except Exception as exc:
        return getattr(exc, "reason", "") == "NotFound"


@pytest.mark.parametrize("streaming", [pytest.param(False, id="list-then-watch"),
                                       pytest.param(True, id="initial-events-streamed")])
def test_kopf_annotates_a_pod_and_holds_its_deletion_with_its_finalizer(cluster, operator):
    cluster.create(POD)
    cluster.create({**POD, "metadata": {"name": "ignored"}})
    pod = wait_until(lambda: (p := seen(cluster, "Pod", "watched")) and p.get("status", {}).get("conditions") and p,
                     30, what="kopf's annotation and condition on the pod")
    assert [(c["type"], c["status"]) for c in pod["status"]["conditions"]] == [(CONDITION, "True")]
    assert annotations(pod)[SEEN] == "kopf:watched" and pod["metadata"]["finalizers"] == [FINALIZER]
    assert "kopf.zalando.org/last-handled-configuration" in annotations(pod)

    held = cluster.delete("Pod", "watched")
    assert held["metadata"]["deletionTimestamp"] and held["metadata"]["finalizers"] == [FINALIZER]
    wait_until(lambda: gone(cluster, "Pod", "watched"), 30, what="kopf to release the pod")
    events = wait_until(lambda: [e for e in cluster.list("Event").items if e.get("reason") == "Released"],
                        30, what="kopf's Event")
    assert events[0]["metadata"]["name"].startswith("kopf-event-")  # POSTed with a generateName
    assert events[0]["message"] == "pod watched released by kopf"
    assert (events[0]["involvedObject"]["kind"], events[0]["involvedObject"]["uid"]) == ("Pod", pod["metadata"]["uid"])
    ignored = cluster.get("Pod", "ignored")["metadata"]
    assert not ignored.get("finalizers") and SEEN not in (ignored.get("annotations") or {})
    assert operator.poll() is None, "the operator exited"


def test_kopf_annotates_a_deployment_and_its_handlers_add_and_remove_a_finalizer(cluster, operator):
    cluster.create(DEPLOYMENT)
    deployment = wait_until(lambda: seen(cluster, "Deployment", "web"), 30, what="kopf's annotation on the deployment")
    assert annotations(deployment)[SEEN] == "kopf:web:2" and deployment["metadata"]["finalizers"] == [FINALIZER, GUARD]

    held = cluster.delete("Deployment", "web")
    assert held["metadata"]["deletionTimestamp"] and held["metadata"]["finalizers"] == [FINALIZER, GUARD]
    wait_until(lambda: gone(cluster, "Deployment", "web"), 30, what="kopf's handler to release the deployment")
    assert operator.poll() is None, "the operator exited"
