"""In-cluster API access on a cri node: every container has its account's token, the cluster CA and its
namespace at /var/run/secrets/kubernetes.io/serviceaccount and KUBERNETES_SERVICE_HOST/PORT; a Python
script in a pod lists pods through https://$KUBERNETES_SERVICE_HOST (the `kubernetes` Service's ClusterIP,
where the gateway listens too) as its ServiceAccount, and is refused what RBAC does not allow it; the token
is bound to the pod: TokenReview answers for it while the pod lives, and once the pod is deleted the
token copied out of it is refused (401) by the gateway. One cri cluster, proxy and gateway for the module
(`node`): the listing test's pod is the only one in `default`, the deleted pod's test works in a namespace
of its own."""
from __future__ import annotations

import asyncio
import json
import ssl
import urllib.error
import urllib.request

import pytest

from actors.proxy import nftables
from runtime.streams import exec_once
from testkit.waiting import wait_until
from tests.integration.cri.served import served_cri_cluster, service_range, serving
from tests.integration.cri.test_cri_pods import pod, state

PYTHON = "kubus/python:3.11.2-bookworm"
SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
pytestmark = pytest.mark.skipif(not nftables.available(), reason="the proxy's rules need `nft`")
LIST = """
import json, os, ssl, sys, urllib.request, urllib.error
d = "/var/run/secrets/kubernetes.io/serviceaccount"
token, ns = open(d + "/token").read(), open(d + "/namespace").read()
context = ssl.create_default_context(cafile=d + "/ca.crt")
base = "https://" + os.environ["KUBERNETES_SERVICE_HOST"] + ":" + os.environ["KUBERNETES_SERVICE_PORT"]
for path in ("/api/v1/namespaces/" + ns + "/pods", "/api/v1/namespaces/" + ns + "/secrets"):
    request = urllib.request.Request(base + path, headers={"Authorization": "Bearer " + token})
    try:
        answer = urllib.request.urlopen(request, context=context, timeout=10)
        print(json.dumps({"code": answer.status, "names": [p["metadata"]["name"] for p in json.load(answer)["items"]]}))
    except urllib.error.HTTPError as exc:
        print(json.dumps({"code": exc.code, "message": json.load(exc)["message"]}))
"""


@pytest.fixture
def in_cluster(procs, settings):
    """Before the cluster starts, a service range of its own (its proxy's route goes with the cluster)."""
    return service_range(procs, settings)


@pytest.fixture
def gateway(in_cluster, cri_cluster, procs, settings, tmp_path):
    with serving(cri_cluster, procs, settings, tmp_path, KUBUS_GATEWAY_LOGIN_TTL_S="1") as (url, ca):
        pod_reader(cri_cluster, "default")
        yield url, ca


def pod_reader(client, namespace: str) -> None:
    """Role and RoleBinding `pods`: the namespace's default account may list its pods."""
    for kind, obj in (("Role", {"rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["list"]}]}),
                      ("RoleBinding", {"roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role",
                                                   "name": "pods"},
                                       "subjects": [{"kind": "ServiceAccount", "name": "default",
                                                     "namespace": namespace}]})):
        client.create({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind,
                       "metadata": {"name": "pods"}, **obj}, namespace=namespace)


@pytest.fixture(scope="module")
def node(amqp_url, tmp_path_factory, request):
    """The module's served cri cluster, default's account allowed to list default's pods."""
    with served_cri_cluster(amqp_url, tmp_path_factory, request, KUBUS_GATEWAY_LOGIN_TTL_S="1") as shared:
        pod_reader(shared.client, "default")
        yield shared


def _get(url: str, ca, path: str, token: str | None = None, body: dict | None = None) -> tuple[int, dict]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url + path, data=data, headers={**headers, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, context=ssl.create_default_context(cafile=str(ca)), timeout=10) as a:
            return a.status, json.load(a)
    except urllib.error.HTTPError as exc:
        return exc.code, json.load(exc)


def _exec(client, name: str, command: list[str], namespace: str = "default"):
    return asyncio.run(exec_once(client, namespace, name, command, b"", None))


def test_a_pod_reads_its_account_files_and_lists_pods_through_the_kubernetes_service(node):
    client = node.client
    client.create(pod("sleeper", "sleep 3600", image=PYTHON))
    wait_until(lambda: state(client, "sleeper", "running"), 90, what="sleeper to run")
    volumes = client.get("Pod", "sleeper")["spec"]["volumes"]
    assert [v["name"][:16] for v in volumes] == ["kube-api-access-"]
    shown = wait_until(lambda: (r := _exec(client, "sleeper", ["cat", f"{SA_DIR}/namespace"])).exit_code == 0
                       and r, 30, 0.2, what="exec")
    assert shown.stdout == b"default"
    env = _exec(client, "sleeper", ["env"]).stdout.decode()
    assert "KUBERNETES_SERVICE_PORT=443" in env and "KUBERNETES_PORT_443_TCP_PROTO=tcp" in env, env
    mounts = _exec(client, "sleeper", ["sh", "-c", f"ls {SA_DIR}; touch {SA_DIR}/x"])
    assert mounts.stdout.split() == [b"ca.crt", b"namespace", b"token"] and mounts.exit_code != 0  # read-only

    listed = _exec(client, "sleeper", ["python3", "-c", LIST])
    lines = [json.loads(line) for line in listed.stdout.decode().splitlines()]
    assert lines[0] == {"code": 200, "names": ["sleeper"]}, (listed.stdout, listed.stderr)
    assert lines[1] == {"code": 403, "message": 'secrets is forbidden: User "system:serviceaccount:default:default" '
                                                'cannot list resource "secrets" in API group "" in the namespace '
                                                '"default"'}, lines


def test_a_deleted_pods_token_is_refused(node):
    url, ca, ns = node.url, node.ca, "token-victim"
    node.client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
    client = node.client.in_namespace(ns)
    wait_until(lambda: client.get("ServiceAccount", "default") and client.get("ConfigMap", "kube-root-ca.crt"),
               30, what=f"the account and kube-root-ca.crt in {ns}")
    pod_reader(client, ns)
    client.create(pod("victim", "sleep 3600", image=PYTHON))
    wait_until(lambda: state(client, "victim", "running"), 90, what="victim to run")
    token = wait_until(lambda: (r := _exec(client, "victim", ["cat", f"{SA_DIR}/token"], ns)).exit_code == 0
                       and r.stdout.decode(), 30, 0.2, what="the token")
    assert _get(url, ca, f"/api/v1/namespaces/{ns}/pods", token)[0] == 200
    review = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": {"token": token}}
    code, answer = _get(url, ca, "/apis/authentication.k8s.io/v1/tokenreviews", token, review)
    assert code == 201 and answer["status"]["authenticated"] is True, answer
    user = answer["status"]["user"]
    assert user["username"] == f"system:serviceaccount:{ns}:default"
    assert user["extra"]["authentication.kubernetes.io/pod-name"] == ["victim"]

    uid = client.get("Pod", "victim")["metadata"]["uid"]
    client.delete("Pod", "victim")
    wait_until(lambda: not client.list("Pod", ns).items or
               all(p["metadata"]["uid"] != uid for p in client.list("Pod", ns).items), 60,
               what="the pod gone")
    code, answer = wait_until(lambda: (got := _get(url, ca, f"/api/v1/namespaces/{ns}/pods", token))[0] == 401
                              and got, 15, 0.5, what="the copied token refused")
    assert answer["reason"] == "Unauthorized"
