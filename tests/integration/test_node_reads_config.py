"""The node authorizer's pod -> ConfigMap/Secret edges: a kubelet gets a Secret or ConfigMap only when
a pod bound to its node references it (env, envFrom, volumes, imagePullSecrets); it lists none."""
from __future__ import annotations

import pytest

from api.status import StatusError

NO_EDGE = "no relationship found between node 'node-1' and this object"


def bound_pod(name: str, node: str, **spec) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"nodeName": node, "containers": [{"name": "app", "image": "busybox", **spec.pop("c", {})}],
                     **spec}}


def objects(kind: str, *names: str) -> list[dict]:
    return [{"apiVersion": "v1", "kind": kind, "metadata": {"name": n}, "data": {}} for n in names]


def test_a_node_reads_what_its_pods_reference_and_nothing_else(cluster, node_1):
    for obj in objects("Secret", "db", "pull", "elsewhere", "loose") + objects("ConfigMap", "cfg", "mounted"):
        cluster.create(obj)
    cluster.create(bound_pod("web", "node-1", imagePullSecrets=[{"name": "pull"}],
                             volumes=[{"name": "v", "configMap": {"name": "mounted"}}],
                             c={"env": [{"name": "P", "valueFrom": {"secretKeyRef": {"name": "db", "key": "k"}}}],
                                "envFrom": [{"configMapRef": {"name": "cfg"}}]}))
    cluster.create(bound_pod("away", "node-2", c={"envFrom": [{"secretRef": {"name": "elsewhere"}}]}))
    for kind, name in [("Secret", "db"), ("Secret", "pull"), ("ConfigMap", "cfg"), ("ConfigMap", "mounted")]:
        assert node_1.get(kind, name)["metadata"]["name"] == name
    for kind, name in [("Secret", "elsewhere"), ("Secret", "loose")]:
        with pytest.raises(StatusError) as refused:
            node_1.get(kind, name)
        assert refused.value.reason == "Forbidden" and refused.value.message.endswith(NO_EDGE), refused.value.message
    with pytest.raises(StatusError) as listed:
        node_1.list("Secret")
    assert listed.value.reason == "Forbidden"
