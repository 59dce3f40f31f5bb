"""The audit wall: the log shows each request as it ended — a write the store refused is not a
success — including requests that could not be read and watches served from the gateway's cache,
and a `kill -9` of the apiserver loses no line of a request that was answered. Each attack is one a
tenant could lean on to act unseen; each ends with the cluster still serving."""
from __future__ import annotations

import json
import ssl
import urllib.request
import uuid
from pathlib import Path

import msgpack
import pytest

from api.status import StatusError
from runtime.client import Client
from tests.conftest import wait_serving
from testkit.people import token_of
from tests.e2e.conftest import running_gateway
from testkit.waiting import wait_until
from tests.helpers import raw_call


def pod(name: str, namespace: str = "default") -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace},
            "spec": {"containers": [{"name": "app", "image": "busybox"}]}}


def events(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def completed(log: Path, audit_id: str) -> dict | None:
    return next((e for e in events(log) if e["auditID"] == audit_id and e["stage"] == "ResponseComplete"), None)


def refused(call) -> StatusError:
    with pytest.raises(StatusError) as err:
        call()
    return err.value


def still_serves(client: Client) -> None:
    name = f"after-{uuid.uuid4().hex[:6]}"
    made = client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    assert client.get("Namespace", made["metadata"]["name"])["metadata"]["uid"] == made["metadata"]["uid"]


@pytest.mark.shared_plane  # the module's plane (its audit log), a namespace of the test's own
def test_a_write_the_store_refuses_is_audited_as_refused(cluster, procs):
    """AlreadyExists, Conflict and a quota's Forbidden are the store's answers, not the apiserver's:
    they were logged as if they had gone through, so a refused write read like a success."""
    log, here = Path(procs.env["KUBUS_AUDIT_LOG"]), cluster.namespace
    ids = {what: f"{what}-{uuid.uuid4().hex[:8]}" for what in ("create", "again", "stale", "quota", "status")}
    first = cluster.create(pod("a", here), message_id=ids["create"])
    assert refused(lambda: cluster.create(pod("a", here), message_id=ids["again"])).reason == "AlreadyExists"
    stale = {**first, "metadata": {**first["metadata"], "resourceVersion": "1"}, "spec": {**first["spec"]}}
    assert refused(lambda: cluster.update(stale, message_id=ids["stale"])).reason == "Conflict"
    quota = cluster.create({"apiVersion": "v1", "kind": "ResourceQuota",
                            "metadata": {"name": "one-pod", "namespace": here}, "spec": {"hard": {"pods": "1"}}})
    cluster.update_status({**quota, "status": {"hard": {"pods": "1"}, "used": {"pods": "1"}}}, message_id=ids["status"])
    assert refused(lambda: cluster.create(pod("b", here), message_id=ids["quota"])).reason == "Forbidden"  # the store's

    wait_until(lambda: all(completed(log, i) for i in ids.values()), 20, what="every write's ResponseComplete")
    status = {what: completed(log, i)["responseStatus"] for what, i in ids.items()}
    assert (status["create"]["code"], status["status"]["code"]) == (201, 200)
    assert (status["again"]["code"], status["again"]["reason"]) == (409, "AlreadyExists")
    assert (status["stale"]["code"], status["stale"]["reason"]) == (409, "Conflict")
    assert (status["quota"]["code"], status["quota"]["reason"]) == (403, "Forbidden")
    assert status["quota"]["message"].startswith('pods "b" is forbidden: exceeded quota: one-pod')
    assert completed(log, ids["again"])["objectRef"] == {"resource": "pods", "namespace": here, "apiVersion": "v1"}
    still_serves(cluster)


@pytest.mark.shared_plane  # nothing is written: the bodies are refused
def test_a_request_that_cannot_be_read_is_audited_as_its_sender(cluster, procs, settings):
    """A body the apiserver cannot take (an invalid one, answered 400; an undecodable one, dead-
    lettered) was never logged: a way to probe the cluster unseen."""
    log = Path(procs.env["KUBUS_AUDIT_LOG"])
    invalid = msgpack.packb({"verb": "create", "kind": "Pod", "namespace": "default", "name": "x", "object": "no map",
                             "resourceVersion": None, "options": {}})
    [reply] = raw_call(settings.amqp_url, cluster.names.api, "apiserver", [invalid], message_id="invalid-1")
    assert reply["status"]["code"] == 400
    raw_call(settings.amqp_url, cluster.names.api, "apiserver", [b"\xc1\xc1"], timeout=0, message_id="garbled-1")

    wait_until(lambda: completed(log, "invalid-1") and completed(log, "garbled-1"), 20,
               what="both unreadable requests in the audit log")
    bad, garbled = completed(log, "invalid-1"), completed(log, "garbled-1")
    assert (bad["user"]["username"], bad["verb"], bad["objectRef"]["resource"]) == ("admin", "create", "pods")
    assert (bad["responseStatus"]["code"], bad["responseStatus"]["reason"]) == (400, "BadRequest")
    assert garbled["user"]["username"] == "admin" and garbled["responseStatus"]["code"] == 400
    assert "could not be decoded" in garbled["responseStatus"]["message"]
    still_serves(cluster)


def test_each_watch_the_gateway_serves_from_its_cache_is_audited(cluster, procs, settings, tmp_path):
    """The gateway serves a person's watches from one cache: only the first reached an apiserver,
    so every later watch went unlogged (and unauthorized)."""
    log = Path(procs.env["KUBUS_AUDIT_LOG"])
    with running_gateway(procs, settings, tmp_path) as (url, ca):
        def watch() -> None:
            request = urllib.request.Request(f"{url}/api/v1/namespaces/default/pods?watch=true&timeoutSeconds=1",
                                             headers={"Authorization": f"Bearer {token_of(settings, 'admin')}"})
            with urllib.request.urlopen(request, context=ssl.create_default_context(cafile=str(ca)), timeout=30) as r:
                assert r.status == 200
                r.read()

        def watches() -> int:
            return sum(1 for e in events(log) if e["verb"] == "watch" and e["stage"] == "ResponseComplete"
                       and e.get("objectRef", {}).get("namespace") == "default" and e["user"]["username"] == "admin")

        watch()
        wait_until(lambda: watches() >= 1, 20, what="the first watch in the audit log")
        before = watches()
        watch()  # served from the cache the first one made
        wait_until(lambda: watches() == before + 1, 20, what="the second watch in the audit log")
    still_serves(cluster)


def test_a_kill_9_of_the_apiserver_loses_no_line_of_an_answered_request(procs, settings, tmp_path):
    """Lines waited in memory for a writer thread: an apiserver killed (or crashed) took the record
    of the requests it had just answered with it."""
    policy = tmp_path / "every-stage.yaml"
    policy.write_text("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n")
    log = Path(procs.env["KUBUS_AUDIT_LOG"])
    procs.start("store")
    apiserver = procs.start("actors.apiserver", KUBUS_AUDIT_POLICY=str(policy))
    client = Client(settings, name="test")
    try:
        wait_serving(client)
        answered = []
        for i in range(10):
            answered.append(f"write-{i}-{uuid.uuid4().hex[:8]}")
            client.create(pod(f"p{i}"), message_id=answered[-1])  # the store answers these
            answered.append(f"bad-{i}-{uuid.uuid4().hex[:8]}")
            refused(lambda: client.request("list", "Pod", options={"limit": 3}, message_id=answered[-1]))
        procs.kill9(apiserver)
        logged = {e["auditID"] for e in events(log)}
        assert [i for i in answered if i not in logged] == []
        procs.start("actors.apiserver")
        wait_serving(client)
        still_serves(client)
    finally:
        client.close()
