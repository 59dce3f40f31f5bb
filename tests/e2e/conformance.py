"""What Kubernetes' conformance suite tripped on (issue 40 §2), as kubectl meets it: a watch from a
list's resourceVersion, a foreground delete of an ownership cycle."""
from __future__ import annotations

import json

import yaml

from testkit.waiting import wait_until
from tests.e2e.test_kubectl import ok


def watch_from_a_lists_version(kubectl, namespace: str, listed: str, name: str) -> None:
    """A list's resourceVersion, the cluster's moving on, then a watch in the namespace from that version."""
    selector = f"?labelSelector=watched%3D{name}"
    version = json.loads(ok(kubectl("get", "--raw", listed + selector)))["metadata"]["resourceVersion"]
    ok(kubectl("create", "configmap", f"elsewhere-{name}", "-n", "default"))  # the cluster's version moves on
    ok(kubectl("apply", "-f", "-", stdin=yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
        "name": f"watched-{name}", "namespace": namespace, "labels": {"watched": name}}})))
    watched = kubectl("get", "--raw", f"/api/v1/namespaces/{namespace}/configmaps{selector}&watch=1"
                                      f"&resourceVersion={version}&timeoutSeconds=2")
    events = [json.loads(line) for line in ok(watched).splitlines()]
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in events] == [("ADDED", f"watched-{name}")]


def ownership_cycle(kubectl, client, namespace: str) -> None:
    """pod1 → pod3 → pod2 → pod1, each owner blocking: deleting pod1 in the foreground ends."""
    pods = {}
    for name in ("pod1", "pod2", "pod3"):
        meta = {"name": name, "namespace": namespace}
        pods[name] = client.create({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {
            "nodeSelector": {"nowhere": "x"}, "containers": [{"name": "c", "image": "nginx"}]}})
    for child, owner in (("pod1", "pod3"), ("pod3", "pod2"), ("pod2", "pod1")):
        ref = {"apiVersion": "v1", "kind": "Pod", "name": owner, "uid": pods[owner]["metadata"]["uid"],
               "blockOwnerDeletion": True}
        client.patch("Pod", child, {"metadata": {"ownerReferences": [ref]}}, namespace=namespace)
    deleted = kubectl("delete", "pod", "pod1", "--cascade=foreground", "--timeout=60s", "-n", namespace)
    assert deleted.stdout.strip() == 'pod "pod1" deleted', deleted.stderr
    wait_until(lambda: not {p["metadata"]["name"] for p in client.list("Pod", namespace).items} & set(pods), 30,
               what="the cycle collected")
