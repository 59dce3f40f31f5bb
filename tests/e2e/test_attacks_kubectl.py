"""The scope attacks with real kubectl through the gateway: bob, `admin` in `default` only, uses the
namespace-less paths (`/api/v1/pods`, `/apis/rbac.authorization.k8s.io/v1/rolebindings`) to read
every namespace and to write into others. Each is refused at the cluster scope, and kubectl still
works for bob in his namespace and for a cluster admin everywhere."""
from __future__ import annotations

import json
import shutil

import pytest
import yaml

from testkit.people import as_person, token_of
from tests.e2e.conftest import kubectl_for
from tests.tenancy import VICTIM_NS, admin_binding, pod, two_tenants

pytestmark = pytest.mark.skipif(shutil.which("kubectl") is None, reason="no kubectl on the PATH")


@pytest.fixture
def tenants(gateway, cluster, procs, settings, tmp_path):
    """(bob's kubectl, admin's kubectl) on the two tenants' cluster."""
    two_tenants(cluster, procs)
    as_person(settings, "bob")
    url, ca = gateway
    return (kubectl_for(tmp_path, url, ca, token_of(settings, "bob")),
            kubectl_for(tmp_path, url, ca, token_of(settings, "admin")))


def at_cluster_scope(verb: str, resource: str, group: str = "", name: str = "") -> str:
    subject = f"{resource}.{group}" if group else resource
    if name:
        subject += f' "{name}"'
    return f'Error from server (Forbidden): {subject} is forbidden: User "bob" cannot {verb} resource ' \
           f'"{resource}" in API group "{group}" at the cluster scope'


def refused(result, message: str) -> None:
    assert result.returncode == 1 and message in result.stderr, result.stderr or result.stdout


def test_reading_every_namespace_needs_cluster_wide_list(tenants):
    bob, admin = tenants
    refused(bob("get", "pods", "-A"), at_cluster_scope("list", "pods"))
    refused(bob("get", "--raw", "/apis/rbac.authorization.k8s.io/v1/rolebindings"),
            at_cluster_scope("list", "rolebindings", "rbac.authorization.k8s.io"))
    _still_serves(bob, admin)


@pytest.mark.parametrize("verb, path, obj, resource", [
    pytest.param("create", "/api/v1/pods", pod("planted", "kube-system"), ("pods",), id="create-pod-in-kube-system"),
    pytest.param("create", "/apis/rbac.authorization.k8s.io/v1/rolebindings", admin_binding(VICTIM_NS),
                 ("rolebindings", "rbac.authorization.k8s.io"), id="bind-admin-in-team-b"),
    pytest.param("replace", "/api/v1/pods/web", pod("web", VICTIM_NS, "node-2", image="evil"), ("pods", "", "web"),
                 id="overwrite-team-b-pod"),
])
def test_a_write_on_a_namespace_less_path_is_refused(tenants, cluster, tmp_path, verb, path, obj, resource):
    bob, admin = tenants
    body = tmp_path / "body.json"
    body.write_text(json.dumps(obj))
    refused(bob(verb, "--raw", path, "-f", str(body)),
            at_cluster_scope("update" if verb == "replace" else "create", *resource))
    assert cluster.list("Pod", "kube-system").items == []
    assert cluster.list("RoleBinding", VICTIM_NS).items == []
    assert cluster.get("Pod", "web", VICTIM_NS)["spec"]["containers"][0]["image"] == "busybox"
    refused(bob("get", "pods", "-n", VICTIM_NS), 'cannot list resource "pods" in API group "" in the namespace '
                                                 f'"{VICTIM_NS}"')
    _still_serves(bob, admin)


def test_kubectl_apply_places_objects_by_the_file_or_the_flag(tenants, cluster, tmp_path):
    """A file without a namespace goes to the context's (default) or `-n`'s; one with its own goes
    there; `-n` contradicting the file is kubectl's own refusal."""
    bob, admin = tenants
    plain, placed = tmp_path / "plain.yaml", tmp_path / "placed.yaml"
    plain.write_text(yaml.safe_dump(pod("plain", None)))
    placed.write_text(yaml.safe_dump(pod("placed", VICTIM_NS)))
    for kubectl, args in ((bob, ()), (admin, ("-n", VICTIM_NS))):
        assert kubectl("apply", "-f", str(plain), *args).returncode == 0
    assert admin("apply", "-f", str(placed)).returncode == 0
    mismatch = bob("apply", "-f", str(placed), "-n", "default")
    assert mismatch.returncode == 1 and "does not match the namespace" in mismatch.stderr
    assert {(p["metadata"]["namespace"], p["metadata"]["name"]) for p in cluster.list("Pod").items} == {
        ("default", "web"), ("default", "plain"), (VICTIM_NS, "web"), (VICTIM_NS, "plain"), (VICTIM_NS, "placed")}


def _still_serves(bob, admin) -> None:
    mine = bob("get", "pods", "-o", "name")
    assert (mine.returncode, mine.stdout.split()) == (0, ["pod/web"]), mine.stderr
    every = admin("get", "pods", "-A", "--no-headers")
    assert every.returncode == 0, every.stderr
    assert sorted(line.split()[0] for line in every.stdout.splitlines()) == ["default", VICTIM_NS]
