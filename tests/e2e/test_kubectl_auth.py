"""kubectl 1.33's identity verbs through the gateway: `create token` and the token used by kubectl,
`auth whoami`, `auth can-i --as`, a `--as` delete refused, and `--validate=strict`. Where kubectl
sends a body as protobuf (which another piece of work teaches the gateway), the JSON path is
driven with requests, as a client library would."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import requests

from testkit.people import as_person, token_of
from testkit.waiting import wait_until
from tests.e2e.conftest import kubectl_for

KUBECTL = "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"
pytestmark = [pytest.mark.skipif(not Path(KUBECTL).exists(), reason="no kubectl 1.33"),
              pytest.mark.shared_plane]  # one control plane and gateway for the module, a namespace per test
WHOAMI = "/apis/authentication.k8s.io/v1/selfsubjectreviews"


def robot(namespace: str) -> list[dict]:
    """ServiceAccount robot in `namespace`, bound to ClusterRole view there."""
    return [{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot", "namespace": namespace}},
            {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
             "metadata": {"name": "robot-view", "namespace": namespace},
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
             "subjects": [{"kind": "ServiceAccount", "name": "robot", "namespace": namespace}]}]


def token_path(namespace: str) -> str:
    return f"/api/v1/namespaces/{namespace}/serviceaccounts/robot/token"


@pytest.fixture(scope="module")
def aggregated(plane):
    """The module's plane with the aggregation controller, ClusterRole view aggregated, and bob."""
    plane.procs.start("actors.controllers", "clusterrole-aggregation", label="aggregation")

    def viewing_pods() -> bool:
        return any("pods" in (rule.get("resources") or ()) for rule in plane.client.get("ClusterRole", "view")["rules"])
    wait_until(viewing_pods, 30, what="the view role aggregated")
    as_person(plane.settings, "bob")


@pytest.fixture
def front(aggregated, cluster, settings, gateway, tmp_path, namespace):
    """robot in the test's namespace; (kubectl 1.33 for a token there, an HTTP caller as admin)."""
    for obj in robot(namespace):
        cluster.create(obj)
    url, ca = gateway

    def kubectl(token: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        argv = kubectl_for(tmp_path, url, ca, token, namespace).argv(*args)
        return subprocess.run([KUBECTL, *argv[1:]], input=stdin, capture_output=True, text=True, timeout=90)

    def http(method: str, path: str, token: str = token_of(settings, "admin"), **kw) -> requests.Response:
        return requests.request(method, url + path, headers={"Authorization": f"Bearer {token}",
                                                             **kw.pop("headers", {})},
                                verify=str(ca), timeout=30, **kw)
    return kubectl, http, token_of(settings, "admin")


def test_create_token_gives_a_token_kubectl_can_use(front, namespace):
    kubectl, http, admin = front
    made = kubectl(admin, "create", "token", "robot", "--duration=20m")
    if made.returncode != 0:  # kubectl's typed client may send the TokenRequest as protobuf
        assert "protobuf" in made.stderr, made.stderr
        request = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                   "spec": {"expirationSeconds": 1200}}
        made = http("POST", token_path(namespace), json=request)
        assert made.status_code == 201, made.text
        answer = made.json()
        assert answer["kind"] == "TokenRequest" and answer["spec"]["expirationSeconds"] == 1200
        token = answer["status"]["token"]
        assert answer["status"]["expirationTimestamp"].endswith("Z")
    else:
        token = made.stdout.strip()
    listed = kubectl(token, "get", "serviceaccounts", "-o", "name")
    assert listed.stdout.split() == ["serviceaccount/robot"], listed.stderr
    refused = kubectl(token, "delete", "serviceaccount", "robot")
    assert f'User "system:serviceaccount:{namespace}:robot" cannot delete resource "serviceaccounts"' in refused.stderr


@pytest.mark.parametrize("spec, status, message", [
    ({"expirationSeconds": 300}, 422, 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: '
                                      'Invalid value: 300: may not specify a duration less than 10 minutes'),
    ({"boundObjectRef": {"kind": "Pod", "apiVersion": "v1", "name": "absent"}}, 404, 'pods "absent" not found'),
    ({"boundObjectRef": {"kind": "Secret", "apiVersion": "v1", "name": "s"}}, 400, "kubus binds tokens to Pods only"),
])
def test_a_token_request_kubernetes_refuses(front, namespace, spec, status, message):
    _, http, _ = front
    answer = http("POST", token_path(namespace), json={"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                                            "spec": spec})
    assert answer.status_code == status, answer.text
    assert message in answer.json()["message"]


def test_a_token_is_only_for_who_may_create_it(front, settings, namespace):
    _, http, _ = front
    answer = http("POST", token_path(namespace), token_of(settings, "bob"), json={"spec": {}})
    assert answer.status_code == 403
    assert answer.json()["message"] == 'serviceaccounts "robot" is forbidden: User "bob" cannot create resource ' \
                                       f'"serviceaccounts/token" in API group "" in the namespace "{namespace}"'


def test_whoami_names_the_caller_or_whom_it_impersonates(front):
    kubectl, http, admin = front
    shown = kubectl(admin, "auth", "whoami", "-o", "json")
    if shown.returncode == 0:
        assert json.loads(shown.stdout)["status"]["userInfo"]["username"] == "admin"
    else:  # kubectl's typed client sends the review as protobuf
        assert "protobuf" in shown.stderr, shown.stderr
    review = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
    own = http("POST", WHOAMI, json=review)
    assert own.status_code == 201 and own.json()["status"]["userInfo"] == {
        "username": "admin", "groups": ["system:masters", "system:authenticated"]}
    other = http("POST", WHOAMI, json=review, headers={"Impersonate-User": "jane", "Impersonate-Uid": "7"})
    assert other.json()["status"]["userInfo"] == {"username": "jane", "uid": "7", "groups": ["system:authenticated"]}


def test_can_i_and_delete_as_another(front, cluster, namespace):
    kubectl, _, admin = front
    assert kubectl(admin, "auth", "can-i", "delete", "serviceaccounts", "--as=bob").stdout.strip() == "no"
    assert kubectl(admin, "auth", "can-i", "list", "pods",
                   f"--as=system:serviceaccount:{namespace}:robot").stdout.strip() == "yes"
    refused = kubectl(admin, "--as=bob", "delete", "serviceaccount", "robot")
    assert 'User "bob" cannot delete resource "serviceaccounts"' in refused.stderr
    assert cluster.get("ServiceAccount", "robot")["metadata"]["name"] == "robot"
