"""ConfigMaps and Secrets against the real broker, store and apiserver (issue 37): the store's file
holds no Secret in clear, immutable and stringData as Kubernetes, Secrets audited without bodies,
`view` may not read them, and the root-CA publisher keeps kube-root-ca.crt in every namespace."""
from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest
import yaml

from actors.gateway.tls import ensure_certificates
from api.status import StatusError
from runtime.client import Client
from testkit.people import as_person
from testkit.waiting import wait_until

# the tests that start no actor of their own share the module's plane, with these controllers on it
PLANE_ACTORS = [("actors.controllers", "clusterrole-aggregation"), ("actors.controllers", "root-ca-cert-publisher")]
VALUE = "s3cr3t-value-0451"
CONFIG_VALUE = "plain-config-7788"


def secret(name: str, **fields) -> dict:
    """A Secret in the client's namespace."""
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, **fields}


def configmap(name: str, **fields) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, **fields}


def refusal(call) -> StatusError:
    with pytest.raises(StatusError) as refused:
        call()
    return refused.value


def database_bytes(settings) -> bytes:
    """Everything the store keeps on disk: the database and its write-ahead file."""
    return b"".join(p.read_bytes() for p in Path(settings.data_dir).glob(f"{settings.cluster}.store.db*"))


def test_the_database_file_never_holds_a_secret_in_clear(cluster, procs, settings):
    cluster.create(secret("db", stringData={"password": VALUE}))
    cluster.create(configmap("plain", data={"setting": CONFIG_VALUE}))
    assert base64.b64decode(cluster.get("Secret", "db", "default")["data"]["password"]).decode() == VALUE
    stored = database_bytes(settings)
    assert CONFIG_VALUE.encode() in stored  # the check can fail: a clear value is found where it is
    assert b"k8s:enc:aesgcm:v1:key1:" in stored
    for form in (VALUE.encode(), base64.b64encode(VALUE.encode())):
        assert form not in stored
    rotate(settings.encryption_file)
    procs.kill9(procs.procs[0])  # the store control_plane started: a new one, with key2 first, reads key1's rows
    procs.start("store")
    again = wait_until(lambda: cluster.get("Secret", "db", "default"), 30, what="a new store serving the Secret")
    assert base64.b64decode(again["data"]["password"]).decode() == VALUE
    cluster.update(again)  # rewritten: now under key2
    assert b"k8s:enc:aesgcm:v1:key2:" in database_bytes(settings)


def rotate(path: Path) -> None:
    """A new key first, the old one kept below it to read what it wrote (Kubernetes' rotation)."""
    doc = yaml.safe_load(path.read_text())
    keys = doc["resources"][0]["providers"][0]["aesgcm"]["keys"]
    keys.insert(0, {"name": "key2", "secret": base64.b64encode(os.urandom(32)).decode()})
    path.write_text(yaml.safe_dump(doc))


@pytest.mark.shared_plane
def test_string_data_is_merged_and_never_read_back(cluster):
    made = cluster.create(secret("merged", data={"a": base64.b64encode(b"old").decode()},
                                 stringData={"a": "new", "b": "two"}))
    assert (made["type"], "stringData" in made) == ("Opaque", False)
    assert {k: base64.b64decode(v).decode() for k, v in cluster.get("Secret", "merged")["data"].items()} == {
        "a": "new", "b": "two"}


@pytest.mark.shared_plane
@pytest.mark.parametrize("kind, body, change, message", [
    pytest.param("ConfigMap", configmap("frozen", data={"k": "v"}, immutable=True), {"data": {"k": "w"}},
                 'ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set',
                 id="configmap-data"),
    pytest.param("Secret", secret("frozen", stringData={"k": "v"}, immutable=True), {"immutable": False},
                 'Secret "frozen" is invalid: immutable: Forbidden: field is immutable when `immutable` is set',
                 id="secret-unset"),
    pytest.param("Secret", secret("typed", stringData={"k": "v"}), {"type": "example.com/custom"},
                 'Secret "typed" is invalid: type: Invalid value: "example.com/custom": field is immutable',
                 id="secret-type"),
])
def test_immutable_fields_refuse_an_update(cluster, kind, body, change, message):
    stored = cluster.create(body)
    assert refusal(lambda: cluster.update({**stored, **change})).message == message
    labelled = {**stored, "metadata": {**stored["metadata"], "labels": {"still": "mutable"}}}
    assert cluster.update(labelled)["metadata"]["labels"] == {"still": "mutable"}
    cluster.delete(kind, stored["metadata"]["name"])


@pytest.mark.shared_plane
def test_secrets_are_audited_without_bodies(cluster, procs):
    cluster.create(secret("audited", stringData={"token": VALUE}))
    cluster.get("Secret", "audited")
    log = Path(procs.env["KUBUS_AUDIT_LOG"])
    events = lambda: [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []  # noqa: E731
    about = lambda: [e for e in events() if (e.get("objectRef") or {}).get("resource") == "secrets"  # noqa: E731
                     and e["objectRef"].get("namespace") == cluster.namespace]  # this test's, on a shared plane
    wait_until(lambda: {e["verb"] for e in about()} >= {"create", "get"}, 20, what="the Secret's audit events")
    assert {e["level"] for e in about()} == {"Metadata"}
    assert not any("requestObject" in e or "responseObject" in e for e in about())
    assert VALUE not in log.read_text() and base64.b64encode(VALUE.encode()).decode() not in log.read_text()


def binding(name: str, role: str, user: str) -> dict:
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
            "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": user}]}


@pytest.mark.shared_plane  # the aggregation controller runs on the plane (PLANE_ACTORS)
def test_view_reads_configmaps_but_not_secrets_and_edit_reads_both(cluster, settings):
    ns = cluster.namespace
    wait_until(lambda: cluster.get("ClusterRole", "view").get("rules"), 30, what="the view role aggregated")
    cluster.create(secret("hidden", stringData={"k": "v"}))
    cluster.create(configmap("shown", data={"k": "v"}))
    cluster.create(binding("alice-views", "view", "alice"))
    cluster.create(binding("bob-edits", "edit", "bob"))
    with Client(as_person(settings, "alice"), name="test alice") as alice, \
            Client(as_person(settings, "bob"), name="test bob") as bob:
        assert wait_until(lambda: _or_none(lambda: alice.get("ConfigMap", "shown", ns)), 20,
                          what="alice's binding to take effect")
        refused = refusal(lambda: alice.get("Secret", "hidden", ns))
        assert (refused.reason, refused.message) == ("Forbidden", 'secrets "hidden" is forbidden: User "alice" '
                                                     'cannot get resource "secrets" in API group "" in the namespace '
                                                     f'"{ns}"')
        assert refusal(lambda: alice.list("Secret", ns)).reason == "Forbidden"
        assert wait_until(lambda: _or_none(lambda: bob.get("Secret", "hidden", ns)), 20,
                          what="bob reading the Secret")["data"] == {"k": "dg=="}


def _or_none(call):
    try:
        return call()
    except StatusError:
        return None


@pytest.mark.shared_plane  # the publisher and the namespace controller run on the plane
def test_the_root_ca_is_published_in_every_namespace_and_kept(cluster, settings):
    ca = (ensure_certificates(settings.gateway_tls_dir, settings.cluster) / "ca.crt").read_text()
    fresh = f"{cluster.namespace}-fresh"  # named after the test's own namespace
    cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": fresh}})

    def published(ns: str = fresh):
        try:
            cm = cluster.get("ConfigMap", "kube-root-ca.crt", ns)
        except StatusError:
            return None
        return cm if cm.get("data") == {"ca.crt": ca} else None

    first = wait_until(published, 30, what="kube-root-ca.crt in the new namespace")
    assert first["metadata"]["annotations"]["kubernetes.io/description"].startswith("Contains a CA bundle")
    assert wait_until(lambda: published("default"), 30, what="kube-root-ca.crt in default")
    cluster.delete("ConfigMap", "kube-root-ca.crt", fresh)
    again = wait_until(published, 30, what="kube-root-ca.crt made again")
    assert again["metadata"]["uid"] != first["metadata"]["uid"]
    cluster.update({**again, "data": {"ca.crt": "not a CA"}})
    wait_until(published, 30, what="the edit reverted")
    cluster.delete("Namespace", fresh)  # the publisher does not hold a terminating namespace up

    def gone() -> bool:
        try:
            cluster.get("Namespace", fresh)
        except StatusError as exc:
            return exc.reason == "NotFound"
        return False
    wait_until(gone, 30, what="the namespace deleted with its kube-root-ca.crt")
