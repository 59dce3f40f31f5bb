"""The process runtime is no wall (a container is a host process, as root): a node with it runs pods
only of namespaces whose Pod Security level is privileged, and fails any other pod with the reason."""
from __future__ import annotations

from testkit.waiting import wait_until


def namespace(name: str, level: str | None) -> dict:
    labels = {"pod-security.kubernetes.io/enforce": level} if level else {}
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}}


def pod(namespace: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": namespace},
            "spec": {"restartPolicy": "Never", "automountServiceAccountToken": False,
                     "containers": [{"name": "main", "image": "busybox", "command": ["true"]}]}}


def test_a_process_node_refuses_pods_of_a_namespace_that_is_not_privileged(node_cluster):
    node_cluster.create(namespace("walled", "baseline"))
    node_cluster.create(namespace("open", "privileged"))
    node_cluster.create(pod("walled"))
    node_cluster.create(pod("open"))
    refused = wait_until(lambda: (node_cluster.get("Pod", "p", "walled").get("status") or {}).get("reason") and
                         node_cluster.get("Pod", "p", "walled")["status"], 30, what="the refusal")
    assert (refused["phase"], refused["reason"]) == ("Failed", "ProcessRuntime")
    assert "namespace 'walled' enforces 'baseline'" in refused["message"]
    assert "running" not in str(refused.get("containerStatuses"))
    ran = wait_until(lambda: (node_cluster.get("Pod", "p", "open").get("status") or {}).get("phase") == "Succeeded",
                     30, what="the privileged namespace's pod to run")
    assert ran
