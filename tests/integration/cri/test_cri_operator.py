"""The proof of issue 39 item 4, all through real kubectl 1.33 on a cluster whose node runs real
containers: a CRD Widget with a schema; a kopf operator (kubus/kopf) running in a pod as its
ServiceAccount, bound to a ClusterRole for widgets and configmaps, reconciling each Widget into a
ConfigMap and writing the Widget's status through the subresource, with a finalizer (deleting a Widget
removes its ConfigMap, then the Widget goes); a validating webhook served by a pod behind a Service
refusing a Widget with its message; a ValidatingAdmissionPolicy refusing another. One cluster, one test."""
from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest
import yaml

from api.status import StatusError
from runtime.images import kopf as kopf_image
from tests.e2e.test_kubectl import binary, kubectl_at, ok
from tests.integration.cri.test_cri_incluster import gateway, in_cluster  # noqa: F401  (fixtures)
from tests.integration.cri.test_cri_pods import state
from testkit.people import token_of
from testkit.waiting import wait_until
from testkit.webhooks import self_signed

HERE = Path(__file__).parent / "operator"
NS, KOPF, PYTHON = "operator", f"kubus/kopf:{kopf_image.VERSION}", "kubus/python:3.11.2-bookworm"
pytestmark = pytest.mark.skipif(not os.path.exists(binary("1.33")), reason="no kubectl.1.33")

CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "widgets.example.com"},
       "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                              "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                                  "spec": {"type": "object", "required": ["size"], "properties": {
                                      "size": {"type": "string", "enum": ["small", "large"]},
                                      "replicas": {"type": "integer", "minimum": 0, "default": 1},
                                      "color": {"type": "string"}}},
                                  "status": {"type": "object", "properties": {
                                      "configMap": {"type": "string"}, "ready": {"type": "integer"}}}}}}}]}}


def _rbac() -> list[dict]:
    rules = [{"apiGroups": ["example.com"], "resources": ["widgets"],
              "verbs": ["get", "list", "watch", "patch", "update"]},
             {"apiGroups": ["example.com"], "resources": ["widgets/status"], "verbs": ["get", "patch", "update"]},
             {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create", "get", "list", "patch", "delete"]},
             {"apiGroups": [""], "resources": ["events"], "verbs": ["create"]}]
    rbac = "rbac.authorization.k8s.io/v1"
    return [{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "widget-operator", "namespace": NS}},
            {"apiVersion": rbac, "kind": "ClusterRole", "metadata": {"name": "widget-operator"}, "rules": rules},
            {"apiVersion": rbac, "kind": "ClusterRoleBinding", "metadata": {"name": "widget-operator"},
             "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "widget-operator"},
             "subjects": [{"kind": "ServiceAccount", "name": "widget-operator", "namespace": NS}]}]


def _pod(name: str, image: str, source: str, args: list[str], **spec) -> list[dict]:
    code = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"{name}-source", "namespace": NS},
            "data": {Path(source).name: (HERE / source).read_text()}}
    container = {"name": "main", "image": image, "args": args,
                 "volumeMounts": [{"name": "source", "mountPath": "/src"}, *spec.pop("mounts", [])]}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NS, "labels": {"app": name}},
           "spec": {"terminationGracePeriodSeconds": 2, "containers": [container],
                    "volumes": [{"name": "source", "configMap": {"name": f"{name}-source"}}, *spec.pop("volumes", [])],
                    **spec}}
    return [code, pod]


def _webhook(tmp_path) -> tuple[list[dict], dict]:
    cert, key = self_signed(tmp_path, (f"widget-guard.{NS}.svc",))
    pem = Path(cert).read_bytes()
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "widget-guard-tls", "namespace": NS},
              "type": "kubernetes.io/tls", "data": {"tls.crt": base64.b64encode(pem).decode(),
                                                    "tls.key": base64.b64encode(Path(key).read_bytes()).decode()}}
    objects = [secret, *_pod("widget-guard", PYTHON, "webhook.py", [], mounts=[{"name": "tls", "mountPath": "/tls"}],
                             volumes=[{"name": "tls", "secret": {"secretName": "widget-guard-tls"}}])]
    objects[-1]["spec"]["containers"][0].update(command=["python3", "/src/webhook.py"], readinessProbe={
        "tcpSocket": {"port": 8443}, "periodSeconds": 1})  # an endpoint once it listens
    objects.append({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "widget-guard", "namespace": NS},
                    "spec": {"selector": {"app": "widget-guard"}, "ports": [{"port": 443, "targetPort": 8443}]}})
    configuration = {
        "apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "widget-guard"},
        "webhooks": [{"name": "widget-guard.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
                      "clientConfig": {"service": {"namespace": NS, "name": "widget-guard", "path": "/"},
                                       "caBundle": base64.b64encode(pem).decode()},
                      "rules": [{"operations": ["CREATE", "UPDATE"], "apiGroups": ["example.com"],
                                 "apiVersions": ["v1"], "resources": ["widgets"]}]}]}
    return objects, configuration


POLICY = [{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
           "metadata": {"name": "widget-replicas"},
           "spec": {"matchConstraints": {"resourceRules": [{"operations": ["CREATE", "UPDATE"],
                                                            "apiGroups": ["example.com"], "apiVersions": ["v1"],
                                                            "resources": ["widgets"]}]},
                    "validations": [{"expression": "object.spec.replicas <= 5",
                                     "message": "more than 5 replicas need a ticket"}]}},
          {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
           "metadata": {"name": "widget-replicas"},
           "spec": {"policyName": "widget-replicas", "validationActions": ["Deny"]}}]


def _widget(name: str, **spec) -> dict:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name, "namespace": NS},
            "spec": {"size": "small", **spec}}


def _get(client, kind: str, name: str) -> dict | None:
    try:
        return client.get(kind, name, NS)
    except StatusError as exc:
        if exc.reason == "NotFound":
            return None
        raise


def test_a_kopf_operator_in_a_pod_with_a_webhook_and_a_policy(gateway, cri_cluster, procs, settings, tmp_path):
    for controller in ("crd", "endpointslice", "gc"):
        procs.start("actors.controllers", controller, label=f"{controller}-controller")
    procs.start("actors.dns", KUBUS_DNS_ADDRESS=f"{procs.env['KUBUS_CLUSTER_DNS']}:53")  # kopf: kubernetes.default.svc
    url, ca = gateway
    kubectl = kubectl_at("1.33", tmp_path, url, ca, token_of(settings, "admin"))

    def apply(*objects: dict) -> str:
        return ok(kubectl("apply", "-f", "-", stdin=yaml.safe_dump_all(objects)))

    apply(CRD)
    ok(kubectl("wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=30s"))
    ok(kubectl("create", "namespace", NS))
    wait_until(lambda: _get(cri_cluster, "ServiceAccount", "default"), 30, what="the namespace's account")
    hook_objects, configuration = _webhook(tmp_path)
    apply(*_rbac(), *_pod("widget-operator", KOPF, "operator.py",
                          ["run", "--standalone", "--all-namespaces", "/src/operator.py"],
                          serviceAccountName="widget-operator"), *hook_objects)
    for name in ("widget-operator", "widget-guard"):
        wait_until(lambda n=name: (state(_in_ns(cri_cluster), n, "running")), 120, what=f"{name} running")
    wait_until(lambda: _slice(cri_cluster), 30, what="the webhook's ready endpoint")
    apply(configuration, *POLICY)

    apply(_widget("w1", replicas=2))
    try:
        made = wait_until(lambda: _get(cri_cluster, "ConfigMap", "w1-widget"), 60, what="the operator's ConfigMap")
    except AssertionError as exc:  # the operator's own words say why
        raise AssertionError(f"{exc}\n{kubectl('logs', 'widget-operator', '-n', NS).stdout[-4000:]}") from None
    assert made["data"] == {"size": "small", "replicas": "2"}
    assert made["metadata"]["ownerReferences"][0]["kind"] == "Widget"
    widget = wait_until(lambda: (w := _get(cri_cluster, "Widget", "w1")).get("status", {}).get("ready") == 2 and w,
                        30, what="the Widget's status")
    assert widget["status"]["configMap"] == "w1-widget"
    assert "example.com/widget-operator" in widget["metadata"]["finalizers"]
    assert ok(kubectl("get", "widget", "w1", "-n", NS, "-o", "jsonpath={.status.configMap}")) == "w1-widget"

    refused = wait_until(lambda: (r := kubectl("apply", "-f", "-", stdin=json.dumps(_widget("w2", color="forbidden"))))
                         .returncode != 0 and r, 30, what="the webhook refusing")
    assert 'admission webhook "widget-guard.example.com" denied the request: widget w2: the color forbidden is ' \
           'not allowed' in refused.stderr, refused.stderr
    refused = kubectl("apply", "-f", "-", stdin=json.dumps(_widget("w3", replicas=7)))
    assert refused.returncode != 0
    assert "ValidatingAdmissionPolicy 'widget-replicas' with binding 'widget-replicas' denied request: " \
           "more than 5 replicas need a ticket" in refused.stderr, refused.stderr
    assert _get(cri_cluster, "Widget", "w2") is None and _get(cri_cluster, "Widget", "w3") is None

    ok(kubectl("patch", "widget", "w1", "-n", NS, "--type=merge", "-p", '{"spec": {"replicas": 3}}'))
    wait_until(lambda: (_get(cri_cluster, "ConfigMap", "w1-widget") or {}).get("data", {}).get("replicas") == "3",
               60, what="the ConfigMap following the Widget")
    ok(kubectl("delete", "widget", "w1", "-n", NS, "--wait=true", "--timeout=60s"))
    assert _get(cri_cluster, "ConfigMap", "w1-widget") is None and _get(cri_cluster, "Widget", "w1") is None


def _in_ns(client):
    class InNamespace:
        def get(self, kind, name, namespace=None):
            return client.get(kind, name, NS)
    return InNamespace()


def _slice(client) -> bool:
    slices = client.list("EndpointSlice", NS, label_selector="kubernetes.io/service-name=widget-guard").items
    return any(e.get("addresses") and (e.get("conditions") or {}).get("ready")
               for s in slices for e in s.get("endpoints") or [])
