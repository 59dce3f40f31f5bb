"""kubectl's `create` family through the gateway: kubectl >= 1.32's typed clients send these bodies
as Kubernetes protobuf (and read the answers in it), older ones as JSON; each object arrives as its
flags say. Then the gateway's protobuf answers read by a client of its own: an object, a list, a
Status error and a watch's frames. 1.33 runs by default, 1.31 and 1.27 are slow. The tests share their
module's control plane (two hollow nodes, the deployment controllers) and gateway; what each makes that
is cluster-scoped (the namespace it makes, `shop`, among them) is named after its own namespace."""
from __future__ import annotations

import os
import ssl
import urllib.error
import urllib.request

import pytest
import yaml

from api import protobuf
from testkit.people import token_of
from testkit.waiting import wait_until
from tests.e2e.test_kubectl import binary, kubectl_at, lines_until, ok, streaming

pytestmark = [pytest.mark.skipif(not os.path.exists(binary("1.33")), reason="no kubectl.1.33"),
              pytest.mark.shared_plane]  # one control plane and gateway for the module, a namespace per test
PLANE_ACTORS = [("actors.scheduler",),
                ("actors.kubelet", "--hollow", "2", "--capacity", "cpu=32,memory=64Gi,pods=110"),
                ("actors.controllers", "replicaset"), ("actors.controllers", "deployment")]


def creates(ns: str, own: str) -> list:
    """(kubectl create …, what kubectl prints): namespace `ns` and the cluster-scoped objects suffixed `own`."""
    return [
        (("namespace", ns), f"namespace/{ns} created"),
        (("deployment", "web", "--image=nginx", "--port=80", "-n", ns), "deployment.apps/web created"),
        (("service", "clusterip", "web", "--tcp=80:8080", "-n", ns), "service/web created"),
        (("service", "nodeport", "edge", "--tcp=80:8080", "-n", ns), "service/edge created"),
        (("role", "reader", "--verb=get,list", "--resource=pods", "-n", ns),
         "role.rbac.authorization.k8s.io/reader created"),
        (("rolebinding", "reader", "--role=reader", "--user=alice", "-n", ns),
         "rolebinding.rbac.authorization.k8s.io/reader created"),
        (("clusterrole", f"node-reader{own}", "--verb=get", "--resource=nodes"),
         f"clusterrole.rbac.authorization.k8s.io/node-reader{own} created"),
        (("clusterrolebinding", f"node-reader{own}", f"--clusterrole=node-reader{own}", "--group=ops"),
         f"clusterrolebinding.rbac.authorization.k8s.io/node-reader{own} created"),
        (("serviceaccount", "robot", "-n", ns), "serviceaccount/robot created"),
        (("quota", "small", "--hard=pods=10,cpu=4", "-n", ns), "resourcequota/small created"),
        (("priorityclass", f"high{own}", "--value=1000", "--description=first"),
         f"priorityclass.scheduling.k8s.io/high{own} created"),
        (("ingress", "web", "--rule=shop.example/=web:80", "-n", ns), "ingress.networking.k8s.io/web created"),
    ]


def created(ns: str, own: str) -> list:
    """(kind, namespace, name, path into the object, the value the flags gave) of `creates(ns, own)`."""
    return [
        ("Deployment", ns, "web", ("spec", "template", "spec", "containers", 0, "ports", 0, "containerPort"), 80),
        ("Deployment", ns, "web", ("spec", "replicas"), 1),
        ("Service", ns, "web", ("spec", "ports", 0, "targetPort"), 8080),
        ("Service", ns, "edge", ("spec", "type"), "NodePort"),
        ("Role", ns, "reader", ("rules", 0, "verbs"), ["get", "list"]),
        ("RoleBinding", ns, "reader", ("subjects", 0, "name"), "alice"),
        ("ClusterRole", None, f"node-reader{own}", ("rules", 0, "resources"), ["nodes"]),
        ("ClusterRoleBinding", None, f"node-reader{own}", ("roleRef", "name"), f"node-reader{own}"),
        ("ResourceQuota", ns, "small", ("spec", "hard", "pods"), "10"),
        ("PriorityClass", None, f"high{own}", ("value",), 1000),
        ("Ingress", ns, "web", ("spec", "rules", 0, "host"), "shop.example"),
    ]


@pytest.fixture
def kube(cluster, gateway):
    """(a client, the gateway's URL, its CA) on the module's cluster of two hollow nodes with the deployment
    controllers."""
    wait_until(lambda: len(cluster.list("Node").items) == 2, 30, what="two nodes")
    return (cluster, *gateway)


@pytest.fixture
def shop(cluster, namespace):
    """The name of a namespace the test makes (`shop` before the tests shared a control plane), named after
    its own; deleted after it, with all it holds."""
    name = f"{namespace}-shop"
    yield name
    if cluster.list("Namespace", field_selector=f"metadata.name={name}").items:
        cluster.delete("Namespace", name)


@pytest.mark.parametrize("version", ["1.33", pytest.param("1.31", marks=pytest.mark.slow),
                                     pytest.param("1.27", marks=pytest.mark.slow)])
def test_kubectl_create_family(kube, settings, tmp_path, version, shop, namespace):
    client, url, ca = kube
    kubectl = kubectl_at(version, tmp_path, url, ca, token_of(settings, "admin"))
    for args, printed in creates(shop, f"-{namespace}"):
        assert ok(kubectl("create", *args)).strip() == printed
    again = kubectl("-v=8", "create", "deployment", "web", "--image=nginx", "-n", shop)  # a Status error back
    assert again.returncode == 1 and 'deployments.apps "web" already exists' in again.stderr
    if version >= "1.32":  # both ways in protobuf: kubectl's own log of the request and the answer
        assert again.stderr.count(f"Content-Type: {protobuf.MEDIA_TYPE}\n") == 2, again.stderr[-3000:]
    for kind, ns, name, path, value in created(shop, f"-{namespace}"):
        obj = client.get(kind, name, namespace=ns)
        assert _at(obj, path) == value, (kind, name, path)
    wait_until(lambda: len(client.list("Pod", namespace=shop).items) == 1, 30, what="the deployment's pod")
    pods = yaml.safe_load(ok(kubectl("get", "pods", "-n", shop, "-o", "yaml")))
    assert [p["spec"]["containers"][0]["image"] for p in pods["items"]] == ["nginx"]
    described = ok(kubectl("describe", "deployment", "web", "-n", shop))  # a typed client: protobuf answers
    assert "Image:" in described and "nginx" in described
    watch = streaming(kubectl, "get", "pods", "-n", shop, "-w", "--no-headers")
    ok(kubectl("scale", "deployment", "web", "--replicas=2", "-n", shop))
    seen = lines_until(watch, lambda lines: len({line.split()[0] for line in lines if line.strip()}) >= 2,
                       "both pods in the watch")
    assert all(line.split()[0].startswith("web-") for line in seen if line.strip())


def _at(obj, path):
    for step in path:
        obj = obj[step]
    return obj


# ---- the answers, read as a client that asks for protobuf --------------------------------------
def test_protobuf_answers(kube, settings, shop):
    client, url, ca = kube
    get = _getter(url, ca, token_of(settings, "admin"))
    created = get("/api/v1/namespaces", method="POST", body=protobuf.encode_object(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": shop, "labels": {"team": "web"}}}))
    assert created[0] == 201 and created[1]["metadata"]["labels"] == {"team": "web"}
    status, one = get(f"/api/v1/namespaces/{shop}")
    assert status == 200 and one["kind"] == "Namespace" and one["metadata"]["uid"]
    status, listed = get("/api/v1/namespaces")
    assert listed["kind"] == "NamespaceList" and shop in [n["metadata"]["name"] for n in listed["items"]]
    status, missing = get("/api/v1/namespaces/nope")
    assert status == 404 and missing["kind"] == "Status" and missing["reason"] == "NotFound"
    assert missing["message"] == 'namespaces "nope" not found'
    frames = get("/api/v1/namespaces?watch=true&timeoutSeconds=1", watch=True)
    assert {"type": "ADDED", "name": shop} in [{"type": e["type"], "name": e["object"]["metadata"]["name"]}
                                             for e in frames]


def _getter(url: str, ca, token: str):
    context = ssl.create_default_context(cafile=str(ca))

    def get(path: str, method: str = "GET", body: bytes | None = None, watch: bool = False):
        headers = {"Authorization": f"Bearer {token}", "Accept": f"{protobuf.MEDIA_TYPE},application/json",
                   **({"Content-Type": protobuf.MEDIA_TYPE} if body else {})}
        request = urllib.request.Request(url + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, context=context, timeout=30) as answer:
                status, content_type, raw = answer.status, answer.headers["Content-Type"], answer.read()
        except urllib.error.HTTPError as refused:
            status, content_type, raw = refused.code, refused.headers["Content-Type"], refused.read()
        if watch:
            assert content_type == f"{protobuf.MEDIA_TYPE};stream=watch"
            return protobuf.read_frames(raw)
        assert content_type == protobuf.MEDIA_TYPE, raw[:200]
        return status, protobuf.decode_object(raw)
    return get
