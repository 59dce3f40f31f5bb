"""A webhook reached through a Service and DELETE through admission, with real kubectl 1.33: the
webhook's clientConfig names a Service whose EndpointSlice holds the test server's address, and the
server's certificate names only `<svc>.<ns>.svc` and 127.0.0.1 — the call verifies the former, so a
certificate for another name fails; deleting an object is judged by a validating webhook (object null,
oldObject the stored object) and by a ValidatingAdmissionPolicy, and so is each item of a collection's
delete (named "", as Kubernetes' DeleteCollection judges them)."""
from __future__ import annotations

import json
import os

import pytest

from tests.conftest import control_plane
from tests.e2e.conftest import running_gateway
from tests.e2e.test_kubectl import binary, kubectl_at, ok
from testkit.people import token_of
from testkit.waiting import wait_until
from testkit.webhooks import configuration, running_webhook

pytestmark = pytest.mark.skipif(not os.path.exists(binary("1.33")), reason="no kubectl.1.33")
SVC, NS = "guard", "webhooks"


@pytest.fixture
def kube(procs, settings, tmp_path):
    client = control_plane(procs, settings)
    with running_gateway(procs, settings, tmp_path) as (url, ca), \
            running_webhook(tmp_path, dns_names=(f"{SVC}.{NS}.svc",)) as server:
        yield client, kubectl_at("1.33", tmp_path, url, ca, token_of(settings, "admin")), server
    client.close()


def _apply(kubectl, obj: dict) -> str:
    return ok(kubectl("apply", "-f", "-", stdin=json.dumps(obj))).strip()


def _service_to(kubectl, port: int) -> None:
    """The Service `guard` (port 443 → `https`) and, as the EndpointSlice controller would make for a
    pod, a slice with the test server's address and port."""
    ok(kubectl("create", "namespace", NS))
    _apply(kubectl, {"apiVersion": "v1", "kind": "Service", "metadata": {"name": SVC, "namespace": NS},
                     "spec": {"ports": [{"name": "https", "port": 443, "targetPort": port}]}})
    _apply(kubectl, {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                     "metadata": {"name": f"{SVC}-1", "namespace": NS,
                                  "labels": {"kubernetes.io/service-name": SVC}},
                     "addressType": "IPv4", "ports": [{"name": "https", "port": port, "protocol": "TCP"}],
                     "endpoints": [{"addresses": ["127.0.0.1"], "conditions": {"ready": True}}]})


def _guard(ca_bundle: str, **service) -> dict:
    return {"name": "guard.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
            "clientConfig": {"service": {"namespace": NS, "name": SVC, "path": "/guard", **service},
                             "caBundle": ca_bundle},
            "rules": [{"operations": ["DELETE"], "apiGroups": [""], "apiVersions": ["v1"],
                       "resources": ["configmaps"]}]}


def test_a_webhook_behind_a_service_judges_deletes(kube):
    client, kubectl, server = kube
    _service_to(kubectl, server.port)
    _apply(kubectl, configuration("ValidatingWebhookConfiguration", "guard", [_guard(server.ca_bundle)]))
    ok(kubectl("create", "configmap", "free"))
    ok(kubectl("create", "configmap", "kept"))
    ok(kubectl("label", "configmap", "kept", "protected=true"))
    wait_until(lambda: kubectl("delete", "configmap", "kept", "--dry-run=server").returncode != 0, 10,
               what="the webhook in use")
    refused = kubectl("delete", "configmap", "kept")
    assert refused.returncode != 0
    assert 'admission webhook "guard.example.com" denied the request: kept is protected' in refused.stderr
    call = server.calls[-1]
    assert (call["operation"], call["name"], call["object"]) == ("DELETE", "kept", None)
    assert call["oldObject"]["metadata"]["labels"] == {"protected": "true"}
    assert call["options"]["kind"] == "DeleteOptions"
    assert client.get("ConfigMap", "kept", "default")
    ok(kubectl("delete", "configmap", "free"))

    ok(kubectl("patch", "validatingwebhookconfiguration", "guard", "--type=json", "-p",
               '[{"op": "replace", "path": "/webhooks/0/clientConfig/service/port", "value": 8443}]'))
    wait_until(lambda: "no service port 8443" in kubectl("delete", "configmap", "kept", "--dry-run=server").stderr,
               10, what="the changed port in use")
    failed = kubectl("delete", "configmap", "kept")
    assert 'Internal error occurred: failed calling webhook "guard.example.com": could not get REST client: ' \
           f'no service port 8443 found for service "{SVC}"' in failed.stderr


def _swept(kubectl, *names: str) -> None:
    for name in names:
        ok(kubectl("create", "configmap", name, f"--from-literal={name}=1"))
        ok(kubectl("label", "configmap", name, "set=swept", *(["protected=true"] if name == "guarded" else [])))


SWEEP = "/api/v1/namespaces/default/configmaps?labelSelector=set%3Dswept"


def test_a_collection_delete_judges_each_item(kube):
    client, kubectl, server = kube
    _service_to(kubectl, server.port)
    _apply(kubectl, configuration("ValidatingWebhookConfiguration", "guard", [_guard(server.ca_bundle)]))
    _swept(kubectl, "swept", "guarded")
    wait_until(lambda: kubectl("delete", "configmap", "guarded", "--dry-run=server").returncode != 0, 10,
               what="the webhook in use")
    refused = kubectl("delete", "--raw", SWEEP)
    assert 'admission webhook "guard.example.com" denied the request: guarded is protected' in refused.stderr
    judged = {c["oldObject"]["metadata"]["name"]: c for c in server.calls[-2:]}
    assert sorted(judged) == ["guarded", "swept"]
    assert {(c["operation"], c["name"], c["object"]) for c in judged.values()} == {("DELETE", "", None)}
    assert [c["metadata"]["name"] for c in client.list("ConfigMap", "default", "set=swept").items] == ["guarded"]


def test_a_service_webhook_is_verified_as_its_service_name(procs, settings, tmp_path):
    client = control_plane(procs, settings)
    with running_gateway(procs, settings, tmp_path) as (url, ca), running_webhook(tmp_path) as server:
        kubectl = kubectl_at("1.33", tmp_path, url, ca, token_of(settings, "admin"))
        _service_to(kubectl, server.port)  # the certificate names 127.0.0.1 only
        _apply(kubectl, configuration("ValidatingWebhookConfiguration", "guard", [_guard(server.ca_bundle)]))
        ok(kubectl("create", "configmap", "any"))
        wait_until(lambda: kubectl("delete", "configmap", "any", "--dry-run=server").returncode != 0, 10,
                   what="the webhook in use")
        failed = kubectl("delete", "configmap", "any")
        assert f'failed to call webhook: Post "https://{SVC}.{NS}.svc:443/guard?timeout=10s": ' \
               'tls: failed to verify certificate:' in failed.stderr
        assert not server.calls
    client.close()


def test_a_policy_refuses_a_delete(kube):
    client, kubectl, _ = kube
    _apply(kubectl, {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
                     "metadata": {"name": "keep"},
                     "spec": {"matchConstraints": {"resourceRules": [{
                         "operations": ["DELETE"], "apiGroups": [""], "apiVersions": ["v1"],
                         "resources": ["configmaps"]}]},
                         "validations": [{"expression": "object == null && !('keep' in oldObject.data)",
                                          "message": "a ConfigMap holding keep stays"}]}})
    _apply(kubectl, {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
                     "metadata": {"name": "keep"}, "spec": {"policyName": "keep", "validationActions": ["Deny"]}})
    ok(kubectl("create", "configmap", "held", "--from-literal=keep=1"))
    ok(kubectl("create", "configmap", "loose", "--from-literal=other=1"))
    wait_until(lambda: kubectl("delete", "configmap", "held", "--dry-run=server").returncode != 0, 10,
               what="the policy in use")
    refused = kubectl("delete", "configmap", "held")
    assert "ValidatingAdmissionPolicy 'keep' with binding 'keep' denied request: a ConfigMap holding keep stays" \
        in refused.stderr
    ok(kubectl("delete", "configmap", "loose"))
    assert client.get("ConfigMap", "held", "default")["data"] == {"keep": "1"}


def test_a_policy_judges_each_item_of_a_collection_delete(kube):
    client, kubectl, _ = kube
    _apply(kubectl, {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
                     "metadata": {"name": "sweep"},
                     "spec": {"matchConstraints": {"resourceRules": [{
                         "operations": ["DELETE"], "apiGroups": [""], "apiVersions": ["v1"],
                         "resources": ["configmaps"]}]},
                         "validations": [{"expression": "!('guarded' in oldObject.data)",
                                          "message": "guarded stays"}]}})
    _apply(kubectl, {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
                     "metadata": {"name": "sweep"}, "spec": {"policyName": "sweep", "validationActions": ["Deny"]}})
    _swept(kubectl, "swept", "guarded", "also")
    wait_until(lambda: kubectl("delete", "configmap", "guarded", "--dry-run=server").returncode != 0, 10,
               what="the policy in use")
    refused = kubectl("delete", "--raw", SWEEP)
    assert "ValidatingAdmissionPolicy 'sweep' with binding 'sweep' denied request: guarded stays" in refused.stderr
    assert [c["metadata"]["name"] for c in client.list("ConfigMap", "default", "set=swept").items] == ["guarded"]
