"""Impersonation (`kubectl --as`, the `Impersonate-*` headers) through a real gateway process and
kubectl 1.33: the gateway used to drop the headers and run the request as the caller, so an
administrator's `auth can-i … --as=nobody` said yes and a `--as=nobody delete` deleted as the
administrator. Now the apiserver checks the caller's `impersonate` rights and runs the request as
the impersonated user (RBAC, admission, audit), with Kubernetes' refusals."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import requests

from api.status import StatusError
from runtime.client import Client
from testkit.people import as_person, token_of
from testkit.waiting import wait_until
from tests.e2e.conftest import kubectl_for, running_gateway
from tests.conftest import shared
from tests.tenancy import VICTIM_NS, two_tenants

KUBECTL = "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"
pytestmark = pytest.mark.skipif(not Path(KUBECTL).exists(), reason="no kubectl 1.33")
PODS = "/api/v1/namespaces/default/pods"
SSAR = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
WHOAMI = "/apis/authentication.k8s.io/v1/selfsubjectreviews"


@pytest.fixture(scope="module")
def tenants(plane):
    """The two tenants and a gateway once on the module's shared plane (its tests only read, or are
    refused); (the gateway's URL, its CA)."""
    two_tenants(plane.client, plane.procs)
    as_person(plane.settings, "bob")
    with running_gateway(plane.procs, plane.settings, plane.tmp) as found:
        yield found


@pytest.fixture
def front(cluster, procs, settings, tmp_path, request):
    """Two tenants (bob: `admin` in default only), a gateway; (kubectl as admin, an HTTP caller).
    Marked `shared_plane`: the module's tenants and gateway."""
    if shared(request):
        yield callers(settings, tmp_path, *request.getfixturevalue("tenants"))
        return
    two_tenants(cluster, procs)
    as_person(settings, "bob")
    with running_gateway(procs, settings, tmp_path) as (url, ca):
        yield callers(settings, tmp_path, url, ca)


def callers(settings, tmp_path, url: str, ca):
    """(kubectl 1.33 as admin, an HTTP caller as a person) at the gateway at `url`."""
    kubectl = kubectl_for(tmp_path, url, ca, token_of(settings, "admin"))

    def as_kubectl(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([KUBECTL, *kubectl.argv(*args)[1:]], capture_output=True, text=True, timeout=90)

    def http(method: str, path: str, person: str = "admin", headers=(), **kw) -> requests.Response:
        sent = {"Authorization": f"Bearer {token_of(settings, person)}", **dict(headers)}
        return requests.request(method, url + path, headers=sent, verify=str(ca), timeout=30, **kw)
    return as_kubectl, http


def review(http, verb: str, resource: str, headers=(), person: str = "admin") -> bool:
    body = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
            "spec": {"resourceAttributes": {"verb": verb, "resource": resource}}}
    answer = http("POST", SSAR, person, headers, json=body)
    assert answer.status_code == 201, answer.text
    return answer.json()["status"]["allowed"]


@pytest.mark.shared_plane  # refused, or reads: the module's tenants stay as they were
def test_can_i_as_nobody_is_nobodys_answer(front):
    kubectl, _ = front
    assert kubectl("auth", "can-i", "delete", "nodes").stdout.strip() == "yes"
    answer = kubectl("auth", "can-i", "delete", "nodes", "--as=nobody")
    assert (answer.returncode, answer.stdout.strip()) == (1, "no"), answer


@pytest.mark.shared_plane  # refused, or reads: the module's tenants stay as they were
def test_a_delete_as_someone_else_runs_as_them(front, cluster):
    kubectl, _ = front
    refused = kubectl("--as=nobody", "delete", "pod", "web", "-n", VICTIM_NS)
    assert refused.returncode != 0
    assert 'pods "web" is forbidden: User "nobody" cannot delete resource "pods" in API group "" in the ' \
           f'namespace "{VICTIM_NS}"' in refused.stderr
    assert cluster.get("Pod", "web", VICTIM_NS)["metadata"].get("deletionTimestamp") is None
    assert kubectl("--as=bob", "get", "pods", "-n", "default", "-o", "name").stdout.split() == ["pod/web"]
    assert kubectl("--as=bob", "get", "pods", "-n", VICTIM_NS).returncode != 0


@pytest.mark.shared_plane  # refused, or reads: the module's tenants stay as they were
@pytest.mark.parametrize("headers, status, message", [
    ([("Impersonate-User", "admin")], 403,
     'users "admin" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope'),
    ([("Impersonate-User", "system:serviceaccount:team-b:default")], 403,
     'serviceaccounts "default" is forbidden: User "bob" cannot impersonate resource "serviceaccounts" in API '
     'group "" in the namespace "team-b"'),
    ([("Impersonate-User", "system:serviceaccount:default:default"), ("Impersonate-Group", "system:masters")], 403,
     'groups "system:masters" is forbidden: User "bob" cannot impersonate resource "groups" in API group "" at '
     'the cluster scope'),
    ([("Impersonate-Group", "system:masters")], 400,
     "requested [{Group  system:masters    }] without impersonating a user"),
    ([("Impersonate-Uid", "1234")], 400,
     "requested [{UID  1234  authentication.k8s.io/v1  }] without impersonating a user"),
    ([("Impersonate-User", "nobody"), ("Impersonate-Users", "admin")], 400,
     "the header Impersonate-Users is not one of Kubernetes' impersonation headers"),
])
def test_what_a_caller_may_not_impersonate_is_refused(front, headers, status, message):
    _, http = front
    answer = http("GET", PODS, "bob", headers)
    assert answer.status_code == status, answer.text
    assert answer.json()["message"].startswith(message), answer.json()


@pytest.mark.shared_plane  # refused, or reads: the module's tenants stay as they were
def test_a_service_account_of_ones_namespace_may_be_impersonated(front):
    """`admin` in a namespace holds `impersonate` on its ServiceAccounts, as Kubernetes' role does."""
    _, http = front
    sa = [("Impersonate-User", "system:serviceaccount:default:default")]
    answer = http("POST", WHOAMI, "bob", sa, json={"apiVersion": "authentication.k8s.io/v1",
                                                   "kind": "SelfSubjectReview"})
    assert answer.status_code == 201, answer.text
    assert answer.json()["status"]["userInfo"] == {
        "username": "system:serviceaccount:default:default",
        "groups": ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"]}
    assert not review(http, "list", "pods", sa, "bob")  # the account's rights, not bob's


def test_impersonation_is_audited_with_both_users(front, procs):
    _, http = front
    headers = [("Impersonate-User", "nobody"), ("Impersonate-Group", "team"), ("Impersonate-Uid", "u-1"),
               ("Impersonate-Extra-Scopes", "view")]
    assert not review(http, "get", "pods", headers)
    log = Path(procs.env["KUBUS_AUDIT_LOG"])

    def found():
        events = [json.loads(line) for line in log.read_text().splitlines()]
        return [e for e in events if e.get("impersonatedUser") and e["stage"] == "ResponseComplete"]
    wait_until(found, 20, what="the impersonated request's audit record")
    event = found()[0]
    assert event["user"]["username"] == "admin"
    assert event["impersonatedUser"] == {"username": "nobody", "uid": "u-1", "groups": ["team", "system:authenticated"],
                                         "extra": {"scopes": ["view"]}}


def test_over_the_bus_the_apiserver_decides(cluster, procs, settings):
    """The gateway only carries the headers: a person on the bus asking for impersonation meets the
    same check, and cannot set up a watch (a queue is its consumer's) as someone else."""
    two_tenants(cluster, procs)
    bob = Client(as_person(settings, "bob"), name="test bob")
    try:
        with pytest.raises(StatusError) as err:
            bob.request("list", "Pod", namespace=VICTIM_NS, impersonate={"user": "admin"})
        assert err.value.message.startswith('users "admin" is forbidden: User "bob" cannot impersonate')
        with pytest.raises(StatusError) as err:
            cluster.request("watch", "*", impersonate={"user": "bob"},
                            options={"keys": ["pod.default.*"], "queue": "x"})
        assert err.value.reason == "BadRequest"
        listed = cluster.request("list", "Pod", namespace="default", impersonate={"user": "bob"})
        assert [p["metadata"]["name"] for p in listed["items"]] == ["web"]
    finally:
        bob.close()
