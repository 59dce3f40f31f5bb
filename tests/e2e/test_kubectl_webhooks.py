"""Admission webhooks through real kubectl 1.33 and the gateway, with an HTTPS webhook server of the
test's own on 127.0.0.1 (testkit/webhooks.py): a validating webhook refuses a ConfigMap with a bad key
(kubectl shows Kubernetes' message) and its warning reaches kubectl; a mutating one adds a label by JSON
patch; a webhook that is down fails the write under `Fail` and lets it through under `Ignore`; a webhook
slower than its timeoutSeconds fails the write after the timeout."""
from __future__ import annotations

import json
import os
import socket
import time

import pytest

from tests.conftest import control_plane
from tests.e2e.conftest import running_gateway
from tests.e2e.test_kubectl import binary, kubectl_at, ok
from testkit.people import token_of
from testkit.waiting import wait_until
from testkit.webhooks import configuration, hook, running_webhook

pytestmark = pytest.mark.skipif(not os.path.exists(binary("1.33")), reason="no kubectl.1.33")
VALIDATING, MUTATING = "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"


@pytest.fixture
def kube(procs, settings, tmp_path):
    client = control_plane(procs, settings)
    with running_gateway(procs, settings, tmp_path) as (url, ca), running_webhook(tmp_path, slow_s=4) as server:
        yield client, kubectl_at("1.33", tmp_path, url, ca, token_of(settings, "admin")), server
    client.close()


def _apply(kubectl, obj: dict) -> str:
    return ok(kubectl("apply", "-f", "-", stdin=json.dumps(obj))).strip()


def _probe(kubectl, *data: str):
    """A server-side dry-run create of a ConfigMap: goes through admission, webhooks included."""
    return kubectl("create", "configmap", "probe", *(f"--from-literal={d}=1" for d in data), "--dry-run=server",
                   "-o", "json")


def test_validating_and_mutating_webhooks(kube):
    client, kubectl, server = kube
    deny = hook("deny.example.com", f"{server.url}/validate", server.ca_bundle)
    assert _apply(kubectl, configuration(VALIDATING, "deny", [deny])) == \
        "validatingwebhookconfiguration.admissionregistration.k8s.io/deny created"
    assert ok(kubectl("get", "validatingwebhookconfigurations")).split()[:5] == \
        ["NAME", "WEBHOOKS", "AGE", "deny", "1"]
    wait_until(lambda: "denied the request" in _probe(kubectl, "badkey").stderr, 10, what="the webhook in use")
    refused = kubectl("create", "configmap", "bad", "--from-literal=badkey=1")
    assert refused.returncode != 0
    assert 'admission webhook "deny.example.com" denied the request: key \'badkey\' is not allowed' in \
        refused.stderr
    made = kubectl("create", "configmap", "good", "--from-literal=fine=1")
    assert made.returncode == 0 and "Warning: checked by the test webhook" in made.stderr
    request = server.calls[-1]
    assert (request["operation"], request["name"], request["namespace"]) == ("CREATE", "good", "default")
    assert request["kind"] == {"group": "", "version": "v1", "kind": "ConfigMap"}
    assert request["resource"] == {"group": "", "version": "v1", "resource": "configmaps"}
    assert request["userInfo"]["username"] == "admin" and request["object"]["data"] == {"fine": "1"}
    ok(kubectl("label", "configmap", "good", "team=a"))
    update = server.calls[-1]
    assert update["operation"] == "UPDATE" and update["options"]["kind"] == "UpdateOptions"
    assert "team" not in (update["oldObject"]["metadata"].get("labels") or {})
    assert update["object"]["metadata"]["labels"] == {"team": "a"}

    label = hook("label.example.com", f"{server.url}/mutate", server.ca_bundle)
    _apply(kubectl, configuration(MUTATING, "label", [label]))
    wait_until(lambda: "mutated" in _probe(kubectl, "x").stdout, 10, what="the mutating webhook in use")
    ok(kubectl("create", "configmap", "labelled", "--from-literal=a=1"))
    assert client.get("ConfigMap", "labelled", "default")["metadata"]["labels"] == {"webhook": "mutated"}
    assert "denied the request" in kubectl("create", "configmap", "bad2", "--from-literal=bad=1").stderr


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_failure_policy_and_timeout(kube):
    client, kubectl, server = kube
    port = _closed_port()
    down = hook("down.example.com", f"https://127.0.0.1:{port}/x", server.ca_bundle)
    _apply(kubectl, configuration(VALIDATING, "down", [down]))
    wait_until(lambda: _probe(kubectl).returncode != 0, 10, what="the webhook that is down in use")
    failed = kubectl("create", "configmap", "a", "--from-literal=k=1")
    assert f'Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: ' \
           f'Post "https://127.0.0.1:{port}/x?timeout=10s": dial tcp 127.0.0.1:{port}: connect: connection ' \
           f'refused' in failed.stderr
    ok(kubectl("patch", "validatingwebhookconfiguration", "down", "--type=json",
               "-p", '[{"op": "replace", "path": "/webhooks/0/failurePolicy", "value": "Ignore"}]'))
    wait_until(lambda: _probe(kubectl).returncode == 0, 10, what="failurePolicy Ignore in use")
    ok(kubectl("create", "configmap", "b", "--from-literal=k=1"))
    ok(kubectl("delete", "validatingwebhookconfiguration", "down"))

    slow = hook("slow.example.com", f"{server.url}/slow", server.ca_bundle, timeoutSeconds=1)
    _apply(kubectl, configuration(MUTATING, "slow", [slow]))
    wait_until(lambda: _probe(kubectl).returncode != 0, 15, what="the slow webhook in use")
    started = time.monotonic()
    timed_out = kubectl("create", "configmap", "c", "--from-literal=k=1")
    took = time.monotonic() - started
    assert 'failed calling webhook "slow.example.com": failed to call webhook: Post ' \
           f'"{server.url}/slow?timeout=1s": context deadline exceeded' in timed_out.stderr
    assert 1 <= took < 4, took
    assert client.get("ConfigMap", "b", "default") and not client.list("ConfigMap", "default").items[2:]
