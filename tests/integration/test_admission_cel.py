"""Dynamic admission's CEL against a real store and apiserver (issue 39, item 2): a webhook's
matchConditions decide whether the apiserver calls it — a false one skips it, a true one calls it, an
erroring one refuses the write under Fail and skips the webhook under Ignore — and a
ValidatingAdmissionPolicy asks the apiserver's own authorizer, as the requester, whether they may
delete deployments (`authorizer.group('apps')…check('delete').allowed()`): bob may not, alice may."""
from __future__ import annotations

import uuid

import pytest

from api.status import StatusError
from runtime.client import Client
from testkit.people import as_person
from testkit.waiting import wait_until
from testkit.webhooks import configuration, hook, running_webhook

VALIDATING = "ValidatingWebhookConfiguration"
ADMISSION = "admissionregistration.k8s.io/v1"
RBAC = "rbac.authorization.k8s.io/v1"
pytestmark = pytest.mark.shared_plane  # one control plane for the module, a namespace per test


def configmap(name: str, **data: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def refusal(call) -> StatusError:
    with pytest.raises(StatusError) as refused:
        call()
    return refused.value


def _refused_with(client: Client, words: str, **data: str) -> bool:
    """Whether a fresh ConfigMap's create is refused with `words` in the message (the apiserver's cache
    has the configuration it waits for); an allowed probe is deleted again."""
    name = f"checked-probe-{uuid.uuid4().hex[:8]}"
    try:
        client.create(configmap(name, **data))
    except StatusError as exc:
        return words in exc.message
    client.delete("ConfigMap", name, client.namespace)
    return False


@pytest.fixture
def webhook(tmp_path):
    with running_webhook(tmp_path) as server:
        yield server


def test_match_conditions_skip_call_or_refuse(cluster, webhook):
    """The configurations are every namespace's while they live: named after the test's, deleted after."""
    deny_config, broken_config = f"{cluster.namespace}-deny", f"{cluster.namespace}-broken"
    names = "object.metadata.name.startsWith('checked-')"
    deny = hook("deny.example.com", f"{webhook.url}/validate", webhook.ca_bundle,
                matchConditions=[{"name": "only-checked", "expression": names},
                                 {"name": "by-a-person", "expression": "request.userInfo.username == 'admin'"}])
    cluster.create(configuration(VALIDATING, deny_config, [deny]))
    wait_until(lambda: _refused_with(cluster, "denied the request", badkey="1"), 20, what="the webhook in use")

    cluster.create(configmap("unchecked", badkey="1"))  # its name fails a condition: the webhook is not called
    assert "unchecked" not in {call["name"] for call in webhook.calls}
    refused = refusal(lambda: cluster.create(configmap("checked-bad", badkey="1")))
    assert refused.message == 'admission webhook "deny.example.com" denied the request: key \'badkey\' is not allowed'
    cluster.create(configmap("checked-good", fine="1"))
    called = [call for call in webhook.calls if call["name"] in ("checked-bad", "checked-good")]
    assert [(c["name"], c["operation"]) for c in called] == [("checked-bad", "CREATE"), ("checked-good", "CREATE")]
    cluster.delete(VALIDATING, deny_config)

    broken = hook("broken.example.com", f"{webhook.url}/validate", webhook.ca_bundle,
                  matchConditions=[{"name": "typo", "expression": "object.data.missing == 'x'"}])
    cluster.create(configuration(VALIDATING, broken_config, [broken]))
    wait_until(lambda: _refused_with(cluster, "resulted in error", fine="1"), 20, what="the erroring condition")
    refused = refusal(lambda: cluster.create(configmap("checked-any", fine="1")))
    assert (refused.reason, refused.message) == (
        "Forbidden", "configmaps \"checked-any\" is forbidden: expression 'object.data.missing == 'x'' resulted "
                     "in error: no such key: missing")
    ignoring = cluster.get(VALIDATING, broken_config)
    ignoring["webhooks"][0]["failurePolicy"] = "Ignore"
    cluster.update(ignoring)
    wait_until(lambda: not _refused_with(cluster, "resulted in error", fine="1"), 20, what="failurePolicy Ignore")
    cluster.create(configmap("checked-any", badkey="1"))  # the webhook is skipped: its refusal never comes
    assert "checked-any" not in {call["name"] for call in webhook.calls}
    cluster.delete(VALIDATING, broken_config)


def _role(name: str, group: str, resource: str, verbs: list[str]) -> dict:
    return {"apiVersion": RBAC, "kind": "Role", "metadata": {"name": name},
            "rules": [{"apiGroups": [group], "resources": [resource], "verbs": verbs}]}


def _binding(name: str, role: str, *users: str) -> dict:
    return {"apiVersion": RBAC, "kind": "RoleBinding", "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role},
            "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": u} for u in users]}


POLICY = {"apiVersion": ADMISSION, "kind": "ValidatingAdmissionPolicy", "metadata": {"name": "deleters-only"},
          "spec": {"failurePolicy": "Fail",
                   "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"],
                                                           "operations": ["CREATE"], "resources": ["configmaps"]}]},
                   "validations": [{"expression": "authorizer.group('apps').resource('deployments')"
                                                  ".namespace(request.namespace).check('delete').allowed()",
                                    "messageExpression": "request.userInfo.username + ' may not delete deployments'",
                                    "reason": "Forbidden"}]}}
BINDING = {"apiVersion": ADMISSION, "kind": "ValidatingAdmissionPolicyBinding", "metadata": {"name": "deleters"},
           "spec": {"policyName": "deleters-only", "validationActions": ["Deny"]}}


def test_a_policy_asks_the_authorizer_about_the_requester(cluster, settings):
    """The policy and its binding are every namespace's while they live: named after the test's, deleted
    after."""
    ours = f"{cluster.namespace}-"
    policy = {**POLICY, "metadata": {"name": f"{ours}deleters-only"}}
    binding = {**BINDING, "metadata": {"name": f"{ours}deleters"},
               "spec": {**BINDING["spec"], "policyName": f"{ours}deleters-only"}}
    cluster.create(_role("configmap-writer", "", "configmaps", ["create", "get", "delete"]))
    cluster.create(_role("deployment-deleter", "apps", "deployments", ["delete"]))
    cluster.create(_binding("writers", "configmap-writer", "alice", "bob"))
    cluster.create(_binding("deleters", "deployment-deleter", "alice"))
    cluster.create(policy)
    cluster.create(binding)
    with Client(as_person(settings, "alice"), name="test alice") as alice, \
            Client(as_person(settings, "bob"), name="test bob") as bob:
        alice.namespace = bob.namespace = cluster.namespace  # where their requests that name none go
        wait_until(lambda: _refused_with(bob, "may not delete deployments"), 20, what="the policy refusing bob")
        refused = refusal(lambda: bob.create(configmap("bobs")))
        assert (refused.reason, refused.message) == (
            "Forbidden", f"configmaps \"bobs\" is forbidden: ValidatingAdmissionPolicy '{ours}deleters-only' with "
                         f"binding '{ours}deleters' denied request: bob may not delete deployments")
        made = alice.create(configmap("alices"))
        assert made["metadata"]["name"] == "alices"
        cluster.create(configmap("admins"))  # system:masters may do anything, deleting deployments too
    assert {c["metadata"]["name"] for c in cluster.list("ConfigMap", cluster.namespace).items} >= {"alices", "admins"}
    cluster.delete("ValidatingAdmissionPolicyBinding", binding["metadata"]["name"])
    cluster.delete("ValidatingAdmissionPolicy", policy["metadata"]["name"])
