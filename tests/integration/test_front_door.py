"""Contract 5 end to end, against the real broker and real processes: RBAC decides what a person
may do (and ends a watch when the binding goes), a kubelet touches only its own node's pods and
Node, Pod Security and ResourceQuota refuse with Kubernetes' words, and the audit log has it all."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from api.status import StatusError
from runtime.client import Client
from runtime.spawn import ROOT
from testkit.waiting import wait_until
from testkit import cli
from testkit.people import as_person

# the tests that start no actor of their own share the module's plane, with these controllers on it
PLANE_ACTORS = [("actors.controllers", "clusterrole-aggregation"), ("actors.controllers", "resourcequota")]
VIEW_IN_TEAM_A = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                  "metadata": {"name": "alice-views", "namespace": "team-a"},
                  "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
                  "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"}]}


def viewer_in(ns: str) -> dict:
    """VIEW_IN_TEAM_A, in namespace `ns`."""
    return {**VIEW_IN_TEAM_A, "metadata": {"name": "alice-views", "namespace": ns}}


def namespace(name: str, labels: dict | None = None) -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels or {}}}


def pod(name: str, ns: str, node: str | None = None, **spec) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns},
            "spec": {"containers": [{"name": "app", "image": "busybox"}], **({"nodeName": node} if node else {}),
                     **spec}}


@pytest.fixture
def teams(cluster):
    """Namespaces team-a and team-b of this test's own (named after its namespace), deleted after."""
    names = tuple(f"{cluster.namespace}-team-{x}" for x in "ab")
    for ns in names:
        cluster.create(namespace(ns))
    yield names
    for ns in names:
        cluster.delete("Namespace", ns)


@pytest.fixture
def people(cluster, teams, settings):
    """The plane, whose view aggregation runs (PLANE_ACTORS), and the test's teams; `open(name)`
    connects as a person."""
    wait_until(lambda: cluster.get("ClusterRole", "view").get("rules"), 30, what="the view role aggregated")
    opened: list[Client] = []

    def open_as(name: str) -> Client:
        opened.append(Client(as_person(settings, name), name=f"test {name}"))
        return opened[-1]

    yield open_as
    for client in opened:
        client.close()


def forbidden(call) -> str:
    with pytest.raises(StatusError) as refused:
        call()
    assert refused.value.reason == "Forbidden", refused.value
    return refused.value.message


@pytest.mark.shared_plane
def test_a_viewer_of_team_a_reads_there_and_nowhere_else_until_the_binding_goes(people, teams, cluster):
    team_a, team_b = teams
    cluster.create(pod("web", team_a))
    cluster.create(pod("db", team_b))
    alice = people("alice")
    assert forbidden(lambda: alice.list("Pod", team_a)) == \
        f'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "{team_a}"'
    cluster.create(viewer_in(team_a))
    wait_until(lambda: [p["metadata"]["name"] for p in alice.list("Pod", team_a).items] == ["web"], 10,
               what="alice to list team-a")
    assert forbidden(lambda: alice.create(pod("mine", team_a))) == \
        f'pods is forbidden: User "alice" cannot create resource "pods" in API group "" in the namespace "{team_a}"'
    assert forbidden(lambda: alice.list("Pod", team_b)).endswith(f'in the namespace "{team_b}"')
    with pytest.raises(StatusError) as refused:
        alice.watch("Pod", team_b).wait_synced(10)
    assert refused.value.message == \
        f'pods is forbidden: User "alice" cannot watch resource "pods" in API group "" in the namespace "{team_b}"'
    watch = alice.watch("Pod", team_a).wait_synced(10)
    assert watch.next(5).object["metadata"]["name"] == "web"
    cluster.delete("RoleBinding", "alice-views", team_a)
    wait_until(lambda: forbidden(lambda: alice.list("Pod", team_a)), 10, what="the access to end")
    with pytest.raises(StatusError) as ended:
        while True:
            watch.next(10)
    assert ended.value.reason == "Forbidden"


@pytest.mark.shared_plane
def test_a_person_cannot_bind_a_queue_to_the_events_himself(people, settings):
    import pika

    alice = people("alice")
    conn = pika.BlockingConnection(pika.URLParameters(alice.settings.amqp_url))
    try:
        channel = conn.channel()
        with pytest.raises(pika.exceptions.ChannelClosedByBroker) as refused:
            channel.queue_declare("", exclusive=True)
        assert refused.value.reply_code == 403
    finally:
        conn.close()


@pytest.mark.shared_plane  # its nodes are named after its namespace
def test_a_kubelet_touches_only_its_own_node_and_pods(cluster, settings):
    from cli.bootstrap import Account, ensure_account
    from config.credentials import actor_url, read_secret

    ns = cluster.namespace
    one, two = f"{ns}-node-1", f"{ns}-node-2"
    secret = read_secret(settings)
    ensure_account(settings, secret, Account("node", one))
    kubelet = Client(settings.with_(amqp_url=actor_url(settings, secret, "node", one)), name=f"test {one}")
    try:
        cluster.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": two}})
        cluster.create(pod("theirs", ns, two))
        cluster.create(pod("ours", ns, one))
        assert forbidden(lambda: kubelet.patch("Pod", "theirs", {"status": {"phase": "Failed"}}, ns,
                                               subresource="status")) == \
            f'pods "theirs" is forbidden: node "{one}" can only update pod status for pods with spec.nodeName ' \
            'set to itself'
        kubelet.patch("Pod", "ours", {"status": {"phase": "Running"}}, ns, subresource="status")
        assert forbidden(lambda: kubelet.get("Node", two)) == \
            f'nodes "{two}" is forbidden: User "system:node:{one}" cannot get resource "nodes" in API group "" ' \
            f"at the cluster scope: node '{one}' cannot read '{two}', only its own Node object"
        assert forbidden(lambda: kubelet.patch("Node", two, {"metadata": {"labels": {"x": "y"}}})) == \
            f'nodes "{two}" is forbidden: node "{one}" is not allowed to modify node "{two}"'
        assert "x" not in (cluster.get("Node", two)["metadata"].get("labels") or {})
        own = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": one, "labels": {
            "node-restriction.kubernetes.io/trusted": "yes"}}}
        assert forbidden(lambda: kubelet.create(own)) == f'nodes "{one}" is forbidden: node "{one}" is not ' \
            'allowed to set the following labels: node-restriction.kubernetes.io/trusted'
    finally:
        kubelet.close()


@pytest.mark.shared_plane  # its locked namespace is named after its own
def test_pod_security_refuses_a_privileged_pod_and_warns_about_a_deployment(cluster):
    locked = f"{cluster.namespace}-locked"
    cluster.create(namespace(locked, {"pod-security.kubernetes.io/enforce": "restricted"}))
    privileged = pod("root", locked)
    privileged["spec"]["containers"][0]["securityContext"] = {"privileged": True}
    message = forbidden(lambda: cluster.create(privileged))
    assert message.startswith('pods "root" is forbidden: violates PodSecurity "restricted:latest": privileged '
                              '(container "app" must not set securityContext.privileged=true)')
    warnings: list[str] = []
    cluster.on_warning = warnings.append
    template = {"metadata": {"labels": {"app": "web"}}, "spec": pod("x", locked)["spec"]}
    cluster.create({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": locked},
                    "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}}, "template": template}})
    assert warnings and warnings[0].startswith('would violate PodSecurity "restricted:latest": '
                                               'allowPrivilegeEscalation != false')
    cluster.delete("Namespace", locked)


@pytest.mark.shared_plane  # the quota controller runs on the plane (PLANE_ACTORS); the quota is the namespace's
def test_a_pod_over_a_resource_quota_is_refused(cluster):
    cluster.create({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "compute"},
                    "spec": {"hard": {"pods": "2", "requests.cpu": "1"}}})
    wait_until(lambda: (cluster.get("ResourceQuota", "compute").get("status") or {}).get("hard"), 30,
               what="the quota controller to fill status.hard")
    small = pod("a", cluster.namespace)
    small["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "600m"}}
    cluster.create(small)
    big = {**small, "metadata": {"name": "b", "namespace": cluster.namespace}}
    assert forbidden(lambda: cluster.create(big)) == (
        'pods "b" is forbidden: exceeded quota: compute, requested: requests.cpu=600m, used: requests.cpu=600m, '
        'limited: requests.cpu=1')
    wait_until(lambda: cluster.get("ResourceQuota", "compute")["status"]["used"].get("pods") == "1", 20,
               what="the quota controller to count the one pod")  # the admission's charge, recounted


@pytest.mark.shared_plane  # it reads the events about its own namespace
def test_the_audit_log_records_who_did_what(cluster, procs, settings):
    log, ns = Path(procs.env["KUBUS_AUDIT_LOG"]), cluster.namespace
    with pytest.raises(StatusError):
        as_client = Client(as_person(settings, "bob"), name="test bob")
        try:
            as_client.list("Pod", ns)
        finally:
            as_client.close()

    def bobs() -> list[dict]:
        events = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        return [e for e in events
                if e["user"]["username"] == "bob" and (e.get("objectRef") or {}).get("namespace") == ns]
    wait_until(bobs, 20, what="bob's request in the audit log")
    bob = bobs()[0]
    assert (bob["apiVersion"], bob["verb"], bob["objectRef"]["resource"], bob["responseStatus"]["code"],
            bob["annotations"]["authorization.k8s.io/decision"]) == ("audit.k8s.io/v1", "list", "pods", 403, "forbid")


LIST_MY_NAMESPACE = """
from api.status import StatusError
from runtime.client import Client
try:
    with Client() as kube:
        print(len(kube.list("Pod", "team-a").items), "pods")
except StatusError as exc:
    print(exc.message)
"""


def _as_pod(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "team-a"},
            "spec": {"restartPolicy": "Never", "containers": [{
                "name": "main", "image": "python", "command": [sys.executable, "-c", LIST_MY_NAMESPACE],
                "env": [{"name": "PYTHONPATH", "value": str(ROOT)}]}]}}


def _output(client: Client, name: str) -> str:
    wait_until(lambda: client.get("Pod", name, "team-a")["status"].get("phase") in ("Succeeded", "Failed"), 60,
               what=f"{name} to finish")
    return client.logs(name, "team-a")["text"].strip().splitlines()[-1]  # its last line: the answer


def test_a_pod_reads_its_namespace_as_its_service_account_once_a_binding_allows_it(node_cluster, procs):
    client = node_cluster
    procs.start("actors.controllers", "serviceaccount", label="sa-controller")
    client.create(namespace("team-a"))
    wait_until(lambda: client.get("ServiceAccount", "default", "team-a"), 30, what="the default ServiceAccount")
    client.create(_as_pod("before"))
    assert _output(client, "before") == 'pods is forbidden: User "system:serviceaccount:team-a:default" cannot ' \
                                        'list resource "pods" in API group "" in the namespace "team-a"'
    client.create({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                   "metadata": {"name": "pod-reader", "namespace": "team-a"},
                   "rules": [{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}]})
    client.create({**VIEW_IN_TEAM_A, "metadata": {"name": "sa-reads", "namespace": "team-a"},
                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "pod-reader"},
                   "subjects": [{"kind": "ServiceAccount", "name": "default", "namespace": "team-a"}]})
    client.create(_as_pod("after"))
    assert _output(client, "after") == "2 pods"


@pytest.mark.shared_plane
def test_auth_can_i_and_whoami(people, teams, cluster, procs):
    team_a, team_b = teams
    cluster.create(viewer_in(team_a))
    env = {**procs.env, "KUBUS_AMQP_URL": people("alice").settings.amqp_url}

    def kubus(*args: str) -> subprocess.CompletedProcess:
        return cli.kubus(*args, env=env)

    allowed = kubus("auth", "can-i", "list", "pods", "-n", team_a)
    assert (allowed.returncode, allowed.stdout.strip()) == (0, "yes"), allowed.stderr
    denied = kubus("auth", "can-i", "create", "pods", "-n", team_a)
    assert (denied.returncode, denied.stdout.strip()) == (1, "no")
    whoami = kubus("auth", "whoami")
    assert whoami.stdout.split() == ["ATTRIBUTE", "VALUE", "Username", "alice", "Groups", "[team-a-devs",
                                     "system:authenticated]"], whoami.stdout
    as_alice = kubus("auth", "can-i", "list", "pods", "-n", team_b, "--as", "alice")
    assert as_alice.returncode == 1 and "forbidden" in as_alice.stderr  # alice may not ask about others


def test_two_apiservers_never_let_a_quota_pass_together(cluster, procs):
    """The store charges the quota in the same commit as the pod: exactly the limit gets through."""
    procs.start("actors.apiserver", label="second-apiserver")
    procs.start("actors.controllers", "resourcequota", label="quota")
    wait_until(lambda: cluster.apiservers() == 2, 30, what="two apiservers")
    cluster.create({"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "few", "namespace": "default"},
                    "spec": {"hard": {"pods": "3"}}})
    wait_until(lambda: (cluster.get("ResourceQuota", "few").get("status") or {}).get("hard"), 30,
               what="the quota controller to fill status.hard")
    futures = [cluster.request_async("create", "Pod", namespace="default", obj=pod(f"p{i}", "default"))
               for i in range(12)]
    replies = [f.result(30) for f in futures]
    created = [r for r in replies if isinstance(r, dict) and r.get("ok")]
    refused = [r["status"] for r in replies if isinstance(r, dict) and not r.get("ok")]
    assert (len(created), len(refused)) == (3, 9), replies
    assert all(s["reason"] == "Forbidden" and "exceeded quota: few, requested: pods=1, used: pods=3, limited: pods=3"
               in s["message"] for s in refused), refused
    assert len(cluster.list("Pod", "default").items) == len(created)
