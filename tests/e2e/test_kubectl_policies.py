"""ValidatingAdmissionPolicies and CRD validation rules through real kubectl 1.33 and the gateway: a
policy refusing a Deployment with more than 5 replicas (Deny), one warning about a missing label (Warn),
one reading its limit from a ConfigMap (params), a CRD whose x-kubernetes-validations rule refuses a bad
custom object, and a CRD whose rule does not compile refused at create."""
from __future__ import annotations

import json
import os

import pytest

from tests.conftest import control_plane
from tests.crds import widget, widget_crd
from tests.e2e.conftest import running_gateway
from tests.e2e.test_kubectl import binary, kubectl_at, ok
from testkit.people import token_of
from testkit.waiting import wait_until

pytestmark = pytest.mark.skipif(not os.path.exists(binary("1.33")), reason="no kubectl.1.33")
ADMISSION = "admissionregistration.k8s.io/v1"
DEPLOYMENTS = {"apiGroups": ["apps"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"],
               "resources": ["deployments"]}


@pytest.fixture
def kube(procs, settings, tmp_path):
    client = control_plane(procs, settings)
    procs.start("actors.controllers", "crd", label="crd-controller")
    with running_gateway(procs, settings, tmp_path) as (url, ca):
        yield client, kubectl_at("1.33", tmp_path, url, ca, token_of(settings, "admin"))
    client.close()


def policy(name: str, validation: dict, **spec) -> dict:
    return {"apiVersion": ADMISSION, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": name},
            "spec": {"matchConstraints": {"resourceRules": [DEPLOYMENTS]}, "validations": [validation], **spec}}


def binding(name: str, policy_name: str, actions: list[str], **spec) -> dict:
    return {"apiVersion": ADMISSION, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": name},
            "spec": {"policyName": policy_name, "validationActions": actions, **spec}}


def deployment(name: str, replicas: int, labels: dict | None = None) -> dict:
    labels = {"app": name, **(labels or {})}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "labels": labels},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}}}


def apply(kubectl, *objects: dict, dry_run: bool = False):
    args = ("apply", "-f", "-", *(("--dry-run=server",) if dry_run else ()))
    return kubectl(*args, stdin="\n---\n".join(json.dumps(o) for o in objects))


def test_policies_deny_warn_and_params(kube):
    client, kubectl = kube
    ok(apply(kubectl, policy("max-replicas", {"expression": "object.spec.replicas <= 5",
                                              "message": "replicas must be no more than 5"}),
             binding("max-replicas-binding", "max-replicas", ["Deny"])))
    wait_until(lambda: apply(kubectl, deployment("big", 7), dry_run=True).returncode != 0, 30,
               what="the Deny policy in force")
    refused = apply(kubectl, deployment("big", 7))
    assert refused.returncode != 0
    assert refused.stderr.strip() == "The deployments \"big\" is invalid: : ValidatingAdmissionPolicy 'max-replicas' " \
                                     "with binding 'max-replicas-binding' denied request: replicas must be no more " \
                                     "than 5"  # kubectl's wording of Kubernetes' Invalid with the message as a cause
    assert "Deployment" not in ok(kubectl("get", "deployments", "-o", "name"))

    ok(apply(kubectl, policy("team-label", {"expression": "'team' in object.metadata.labels",
                                            "message": "every deployment needs a team label"}),
             binding("team-label-binding", "team-label", ["Warn", "Audit"])))
    warning = "Warning: Validation failed for ValidatingAdmissionPolicy 'team-label' with binding " \
              "'team-label-binding': every deployment needs a team label"
    wait_until(lambda: warning in apply(kubectl, deployment("small", 2), dry_run=True).stderr, 30,
               what="the Warn policy in force")
    made = apply(kubectl, deployment("small", 2))
    assert made.returncode == 0 and warning in made.stderr
    assert warning not in ok(apply(kubectl, deployment("labelled", 2, {"team": "a"})))

    lines = ok(kubectl("get", "validatingadmissionpolicies")).splitlines()
    assert lines[0].split() == ["NAME", "VALIDATIONS", "PARAMKIND", "AGE"]
    assert sorted(line.split()[0] for line in lines[1:]) == ["max-replicas", "team-label"]
    assert client.get("ValidatingAdmissionPolicy", "max-replicas")["spec"]["failurePolicy"] == "Fail"

    limits = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "limits", "namespace": "default"},
              "data": {"maxReplicas": "3"}}
    capped = policy("capped", {"expression": "object.spec.replicas <= int(params.data.maxReplicas)",
                               "messageExpression": "'replicas must be at most ' + params.data.maxReplicas"},
                    paramKind={"apiVersion": "v1", "kind": "ConfigMap"})
    capped_binding = binding("capped-binding", "capped", ["Deny"],
                             paramRef={"name": "limits", "namespace": "default", "parameterNotFoundAction": "Deny"},
                             matchResources={"objectSelector": {"matchLabels": {"tier": "capped"}}})
    ok(apply(kubectl, limits, capped, capped_binding))
    four = deployment("four", 4, {"tier": "capped", "team": "a"})
    wait_until(lambda: apply(kubectl, four, dry_run=True).returncode != 0, 30, what="the param policy in force")
    assert "ValidatingAdmissionPolicy 'capped' with binding 'capped-binding' denied request: replicas must be " \
           "at most 3" in apply(kubectl, four).stderr
    ok(apply(kubectl, deployment("four", 4, {"team": "a"})))  # not selected by the binding


def gadget_crd(rule: str) -> dict:
    crd = widget_crd()
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec["properties"]["limit"] = {"type": "integer"}
    spec["x-kubernetes-validations"] = [{"rule": rule, "message": "replicas must not exceed the limit"}]
    return crd


def test_crd_validation_rules(kube):
    client, kubectl = kube
    broken = apply(kubectl, gadget_crd("self.replicsa <= self.limit"))
    assert broken.returncode != 0
    assert "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: " \
           "Invalid value: apiextensions.ValidationRule{Rule:\"self.replicsa <= self.limit\"" in broken.stderr
    assert "compilation failed: ERROR: <input>:1:5: undefined field 'replicsa'" in broken.stderr

    ok(apply(kubectl, gadget_crd("!has(self.limit) || self.replicas <= self.limit")))
    ok(kubectl("wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=30s"))
    wait_until(lambda: kubectl("get", "widgets").returncode == 0, 30, what="widgets served")
    ok(apply(kubectl, widget("fine", replicas=2, limit=3)))
    bad = apply(kubectl, widget("over", replicas=5, limit=3))
    assert bad.returncode != 0
    assert bad.stderr.strip() == 'The Widget "over" is invalid: spec: Invalid value: "object": replicas must not ' \
                                 'exceed the limit'
    refused = kubectl("patch", "widget", "fine", "--type=merge", "-p", '{"spec":{"replicas":9}}')
    assert refused.returncode != 0 and "replicas must not exceed the limit" in refused.stderr
    assert client.get("Widget", "fine", "default")["spec"]["replicas"] == 2
