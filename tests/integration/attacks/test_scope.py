"""Scope is the request's, never the body's (DESIGN contract 5), and a node's rights end at its own
pods: a tenant with rights in `default` only, and a kubelet, try to reach other namespaces' objects
by leaving the request's namespace out or by naming another one in the body."""
from __future__ import annotations

import contextlib

import msgpack
import pytest

from api.registry import lookup
from api.status import StatusError
from runtime.client import Client
from testkit.waiting import wait_until
from tests.conftest import shared
from tests.helpers import raw_call
from testkit.people import as_person
from tests.tenancy import VICTIM_NS, admin_binding, pod, two_tenants

NO_NAMESPACE = "Namespace parameter required."


@pytest.fixture
def bob(cluster, procs, settings, request):
    """bob's client on the two tenants' cluster; marked `shared_plane`: the module's tenants."""
    if shared(request):
        yield request.getfixturevalue("tenants")
        return
    with tenant_bob(cluster, procs, settings) as client:
        yield client


@pytest.fixture(scope="module")
def tenants(plane):
    """The two tenants once on the module's shared plane (its tests are refused, and check that
    nothing changed); bob's client."""
    with tenant_bob(plane.client, plane.procs, plane.settings) as client:
        yield client


@contextlib.contextmanager
def tenant_bob(admin, procs, settings):
    two_tenants(admin, procs)
    client = Client(as_person(settings, "bob"), name="test bob")
    try:
        wait_until(lambda: client.list("Pod", "default").items, 10, what="bob to list default")
        yield client
    finally:
        client.close()


@pytest.fixture
def node_1(cluster, procs, settings):
    from cli.bootstrap import Account, ensure_account
    from config.credentials import actor_url, read_secret

    two_tenants(cluster, procs)
    secret = read_secret(settings)
    ensure_account(settings, secret, Account("node", "node-1"))
    client = Client(settings.with_(amqp_url=actor_url(settings, secret, "node", "node-1")), name="test node-1")
    yield client
    client.close()


def refused(call, reason: str) -> str:
    with pytest.raises(StatusError) as err:
        call()
    assert err.value.reason == reason, err.value
    return err.value.message


def still_serves(admin: Client, tenant: Client) -> None:
    assert [p["metadata"]["name"] for p in tenant.list("Pod", "default").items] == ["web"]
    assert {p["metadata"]["namespace"] for p in admin.list("Pod").items} == {"default", VICTIM_NS}


def at_cluster_scope(verb: str, kind: str, name: str | None = None) -> str:
    info = lookup(kind)
    subject = f'{info.resource} "{name}"' if name else info.resource
    return f'{subject} is forbidden: User "bob" cannot {verb} resource "{info.plural}" in API group ' \
           f'"{info.group}" at the cluster scope'


@pytest.mark.shared_plane  # refused: the module's tenants stay as they were (checked)
@pytest.mark.parametrize("kind", ["Pod", "RoleBinding"])
def test_a_list_without_a_namespace_needs_cluster_wide_list(bob, cluster, kind):
    assert refused(lambda: bob.request("list", kind), "Forbidden") == at_cluster_scope("list", kind)
    still_serves(cluster, bob)


def _victim_image(cluster: Client) -> str:
    return cluster.get("Pod", "web", VICTIM_NS)["spec"]["containers"][0]["image"]


WRITES_ELSEWHERE = [
    pytest.param("create", "Pod", pod("planted", "kube-system"), id="create-pod-in-kube-system"),
    pytest.param("create", "RoleBinding", admin_binding(VICTIM_NS), id="bind-admin-in-team-b"),
    pytest.param("update", "Pod", pod("web", VICTIM_NS, "node-2", image="evil"), id="overwrite-team-b-pod"),
]


def _nothing_written(cluster: Client) -> None:
    assert cluster.list("Pod", "kube-system").items == []
    assert cluster.list("RoleBinding", VICTIM_NS).items == []
    assert _victim_image(cluster) == "busybox"


@pytest.mark.shared_plane  # refused: the module's tenants stay as they were (checked)
@pytest.mark.parametrize("verb, kind, obj", WRITES_ELSEWHERE)
def test_a_write_without_a_namespace_is_authorized_at_the_cluster_scope(bob, cluster, verb, kind, obj):
    """Not as `default` (where bob is admin) and then done in the body's namespace."""
    name = obj["metadata"]["name"] if verb == "update" else None
    message = refused(lambda: bob.request(verb, kind, name=name, obj=obj), "Forbidden")
    assert message == at_cluster_scope(verb, kind, name)
    _nothing_written(cluster)
    refused(lambda: bob.list("Pod", VICTIM_NS), "Forbidden")
    still_serves(cluster, bob)


@pytest.mark.shared_plane  # refused: the module's tenants stay as they were (checked)
@pytest.mark.parametrize("verb, kind, obj", WRITES_ELSEWHERE)
def test_a_write_without_a_namespace_is_refused_even_to_a_cluster_admin(bob, cluster, verb, kind, obj):
    """Kubernetes refuses a namespaced write without a namespace: it is never done in the body's."""
    name = obj["metadata"]["name"] if verb == "update" else None
    assert refused(lambda: cluster.request(verb, kind, name=name, obj=obj), "BadRequest") == NO_NAMESPACE
    _nothing_written(cluster)
    still_serves(cluster, bob)


def test_a_node_cannot_write_the_status_of_another_namespaces_pod_by_its_body(node_1, cluster, settings):
    """node-1's own pod default/web carries the request; the body names team-b/web (bound to node-2),
    whose IP would become a Service's endpoint."""
    body = {"metadata": {"name": "web", "namespace": VICTIM_NS}, "status": {"podIP": "6.6.6.6"}}
    message = refused(lambda: node_1.request("updateStatus", "Pod", namespace="default", name="web", obj=body),
                      "BadRequest")
    assert message == f"the namespace of the object ({VICTIM_NS}) does not match the namespace on the request (default)"
    assert "podIP" not in (cluster.get("Pod", "web", VICTIM_NS).get("status") or {})
    own = {"metadata": {"name": "web", "namespace": "default"}, "status": {"podIP": "10.244.0.7"}}
    node_1.request("updateStatus", "Pod", namespace="default", name="web", obj=own)  # its own pod: still served
    assert cluster.get("Pod", "web", "default")["status"]["podIP"] == "10.244.0.7"


def _store_command(verb: str, namespace: str | None, obj: dict, name: str | None = None) -> bytes:
    return msgpack.packb({"verb": verb, "kind": "Pod", "namespace": namespace, "name": name, "object": obj,
                          "resourceVersion": None, "options": {}})


def _relabelled(cluster: Client) -> dict:
    victim = cluster.get("Pod", "web", VICTIM_NS)
    return {**victim, "metadata": {**victim["metadata"], "labels": {"owned": "yes"}}}


@pytest.mark.shared_plane  # refused: the module's tenants stay as they were (checked)
@pytest.mark.parametrize("command, message", [
    pytest.param(lambda _: _store_command("create", None, pod("planted", "kube-system")), NO_NAMESPACE,
                 id="create-no-ns"),
    pytest.param(lambda _: _store_command("create", "default", pod("planted", "kube-system")),
                 "the namespace of the provided object does not match the namespace sent on the request",
                 id="create-other-ns"),
    pytest.param(lambda cluster: _store_command("update", "default", _relabelled(cluster), "web"),
                 f"the namespace of the object ({VICTIM_NS}) does not match the namespace on the request (default)",
                 id="update-other-ns"),
])
def test_the_store_takes_no_namespace_from_a_body(bob, cluster, procs, settings, command, message):
    """Defence in depth: a command that got past an apiserver (a bug, a compromised one) still acts
    only where its request says."""
    [reply] = raw_call(procs.url_of("actors.apiserver", ()), f"{settings.cluster}.store", "store",
                       [command(cluster)])
    assert (reply.get("status") or {}).get("code") == 400 and reply["status"]["message"] == message, reply
    assert cluster.list("Pod", "kube-system").items == []
    assert not cluster.get("Pod", "web", VICTIM_NS)["metadata"].get("labels")
    still_serves(cluster, bob)
