"""StatefulSets from the command line on two hollow nodes with the local-path class: kubectl 1.33
`apply` of the docs' headless Service and StatefulSet (busybox, minReadySeconds shortened), `rollout
status` until the partitioned roll out completes, `get sts` (its columns) and `get all`, `scale` to 1
removing web-2 and web-1 and keeping their claims, `set image` and `rollout history`/`undo`, `describe
sts`; `kubus describe sts`, `kubus rollout status|history sts/web` and `kubus scale sts/web`."""
from __future__ import annotations

import os

import pytest
import yaml

from tests.conftest import control_plane
from tests.e2e.conftest import running_gateway
from tests.e2e.test_kubectl import binary, kubectl_at, ok
from tests.integration.test_deployment import kubus
from testkit.people import token_of
from testkit.waiting import wait_until

pytestmark = pytest.mark.skipif(not os.path.exists(binary("1.33")), reason="no kubectl.1.33")

SERVICE = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "nginx", "labels": {"app": "nginx"}},
           "spec": {"ports": [{"port": 80, "name": "web"}], "clusterIP": "None", "selector": {"app": "nginx"}}}
STATEFULSET = {  # kubernetes.io's StatefulSet basics, with busybox and a minReadySeconds of 1
    "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "web"},
    "spec": {"selector": {"matchLabels": {"app": "nginx"}}, "serviceName": "nginx", "replicas": 3,
             "minReadySeconds": 1,
             "template": {"metadata": {"labels": {"app": "nginx"}},
                          "spec": {"terminationGracePeriodSeconds": 0,
                                   "containers": [{"name": "nginx", "image": "busybox:1.36",
                                                   "command": ["sleep", "3600"],
                                                   "ports": [{"containerPort": 80, "name": "web"}],
                                                   "volumeMounts": [{"name": "www",
                                                                     "mountPath": "/usr/share/nginx/html"}]}]}},
             "volumeClaimTemplates": [{"metadata": {"name": "www"},
                                       "spec": {"accessModes": ["ReadWriteOnce"],
                                                "resources": {"requests": {"storage": "1Gi"}}}}]}}


@pytest.fixture
def kube(procs, settings, tmp_path):
    client = control_plane(procs, settings)
    procs.start("actors.controllers", "persistentvolume", label="pv-controller")
    procs.start("actors.localpath", label="local-path")
    procs.start("actors.scheduler")
    procs.start("actors.kubelet", "--hollow", "2", "--capacity", "cpu=8,memory=16Gi,pods=110")
    procs.start("actors.controllers", "statefulset", label="sts-controller")
    wait_until(lambda: len(client.list("Node").items) == 2, 30, what="two nodes")
    wait_until(lambda: client.list("StorageClass").items, 30, what="the default class local-path")
    with running_gateway(procs, settings, tmp_path) as (url, ca):
        yield client, kubectl_at("1.33", tmp_path, url, ca, token_of(settings, "admin"))
    client.close()


def pods(client) -> list[str]:
    return sorted(p["metadata"]["name"] for p in client.list("Pod", "default").items)


def test_kubectl_apply_rollout_status_get_scale(kube, procs, tmp_path):
    client, kubectl = kube
    (tmp_path / "web.yaml").write_text(yaml.safe_dump_all([SERVICE, STATEFULSET]))
    assert ok(kubectl("apply", "-f", str(tmp_path / "web.yaml"))).split() == [
        "service/nginx", "created", "statefulset.apps/web", "created"]
    assert ok(kubectl("rollout", "status", "sts/web", "--timeout=90s")).strip().splitlines()[-1] == \
        "partitioned roll out complete: 3 new pods have been updated..."
    header, row = ok(kubectl("get", "sts")).splitlines()
    assert header.split() == ["NAME", "READY", "AGE"] and row.split()[:2] == ["web", "3/3"]
    wide = ok(kubectl("get", "sts", "-o", "wide")).splitlines()
    assert wide[0].split() == ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"]
    assert wide[1].split()[3:] == ["nginx", "busybox:1.36"]
    assert "statefulset.apps/web" in ok(kubectl("get", "all"))
    assert pods(client) == ["web-0", "web-1", "web-2"]
    claims = ok(kubectl("get", "pvc", "-o", "jsonpath={.items[*].metadata.name}")).split()
    assert claims == ["www-web-0", "www-web-1", "www-web-2"]
    described = ok(kubectl("describe", "sts", "web"))
    assert "Replicas:" in described and "3 desired | 3 total" in described

    assert ok(kubectl("scale", "sts", "web", "--replicas=1")).strip() == "statefulset.apps/web scaled"
    wait_until(lambda: pods(client) == ["web-0"], 60, what="web-2 and web-1 gone")
    assert ok(kubectl("get", "pvc", "-o", "jsonpath={.items[*].metadata.name}")).split() == claims

    assert ok(kubectl("set", "image", "sts/web", "nginx=busybox:1.37")).strip() == \
        "statefulset.apps/web image updated"
    ok(kubectl("rollout", "status", "sts/web", "--timeout=60s"))
    wait_until(lambda: client.get("Pod", "web-0", "default")["spec"]["containers"][0]["image"] == "busybox:1.37",
               60, what="web-0 on busybox:1.37")
    history = ok(kubectl("rollout", "history", "sts/web")).splitlines()
    assert history[0].strip() == "statefulset.apps/web" and history[1].split() == ["REVISION", "CHANGE-CAUSE"]
    assert [line.split()[0] for line in history[2:] if line.strip()] == ["1", "2"]
    assert ok(kubectl("rollout", "undo", "sts/web")).strip() == "statefulset.apps/web rolled back"
    wait_until(lambda: client.get("Pod", "web-0", "default")["spec"]["containers"][0]["image"] == "busybox:1.36",
               60, what="web-0 back on busybox:1.36")


def test_kubus_describe_rollout_and_scale_of_a_statefulset(kube, procs):
    client, _ = kube
    client.create({**STATEFULSET, "metadata": {"name": "web", "namespace": "default"}})
    status = kubus(procs, "rollout", "status", "sts/web")
    assert status.returncode == 0, status.stderr
    assert status.stdout.strip().splitlines()[-1] == "partitioned roll out complete: 3 new pods have been updated..."
    described = kubus(procs, "describe", "sts", "web")
    assert described.returncode == 0, described.stderr
    assert "3 desired | 3 total" in described.stdout and "Partition:        0" in described.stdout
    assert "  Name:          www" in described.stdout
    history = kubus(procs, "rollout", "history", "statefulset/web")
    assert [line.split() for line in history.stdout.splitlines()] == [["statefulset.apps/web"],
                                                                      ["REVISION", "CHANGE-CAUSE"], ["1", "<none>"]]
    scaled = kubus(procs, "scale", "sts/web", "--replicas", "2")
    assert scaled.returncode == 0 and scaled.stdout.strip() == "statefulsets.apps/web scaled", scaled.stderr
    wait_until(lambda: pods(client) == ["web-0", "web-1"], 60, what="web-2 gone")
