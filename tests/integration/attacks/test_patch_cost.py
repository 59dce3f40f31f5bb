"""A strategic merge patch cannot stall the apiserver: a tenant's patch of a pod with 2,000 env items
in reverse order (23 s at 400 items, minutes here, when each item was searched for item by item) and
one naming a container thousands of times (each naming merged its growing env again) are answered
within the client's deadline, and another person's request sent meanwhile is answered too."""
from __future__ import annotations

from concurrent.futures import Future

import pytest

from api.status import StatusError
from runtime.client import Client
from testkit.people import as_person

N = 2_000
RULES = [{"verbs": ["get", "create", "patch"], "apiGroups": [""], "resources": ["pods"]}]


@pytest.fixture
def tenant(cluster, settings):
    """alice, who may create, read and patch pods in team-a (and nothing else)."""
    cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}})
    cluster.create({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
                    "metadata": {"name": "pod-patcher", "namespace": "team-a"}, "rules": RULES})
    cluster.create({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
                    "metadata": {"name": "alice-patches", "namespace": "team-a"},
                    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "pod-patcher"},
                    "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": "alice"}]})
    alice = Client(as_person(settings, "alice"), name="test alice")
    yield alice
    alice.close()


def _pod(env: list) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "victim", "namespace": "team-a"},
            "spec": {"containers": [{"name": "app", "image": "busybox", "env": env}]}}


def _answer(future: Future, settings) -> dict | StatusError:
    """The reply, or the StatusError that answered; a Timeout if nothing came by the client's deadline."""
    try:
        reply = future.result(settings.request_timeout_s + 5)
    except TimeoutError:
        return StatusError("Timeout", "no answer by the client's deadline")
    if isinstance(reply, StatusError) or reply.get("ok"):
        return reply
    return StatusError.from_dict(reply["status"])


def _patch_while_another_asks(alice: Client, admin: Client, patch: dict, settings) -> dict | StatusError:
    """alice's patch, and the admin's lists of namespaces, one after another for as long as the patch
    goes unanswered (the client gives it an answer at its deadline): each must be answered. There is
    one apiserver, with one mailbox: a list that arrives while it merges waits for the merge."""
    patched = alice.request_async("patch", "Pod", namespace="team-a", name="victim", obj=patch,
                                  options={"patchType": "strategic"})
    asked = 0
    while asked < 2 or not patched.done():
        other = _answer(admin.request_async("list", "Namespace"), settings)
        assert not isinstance(other, StatusError), f"another person's list went unanswered: {other}"
        assert "team-a" in [ns["metadata"]["name"] for ns in other["items"]]
        asked += 1
    answer = _answer(patched, settings)
    assert not (isinstance(answer, StatusError) and answer.reason in ("Timeout", "ServiceUnavailable")), answer
    return answer


def _still_serves(alice: Client, procs) -> None:
    assert [p.poll() for p in procs.procs] == [None] * len(procs.procs), "an actor process exited"
    labelled = alice.patch("Pod", "victim", {"metadata": {"labels": {"after": "yes"}}}, "team-a",
                           patch_type="strategic")
    assert labelled["metadata"]["labels"] == {"after": "yes"}


def test_a_patch_of_two_thousand_env_items_in_reverse_is_answered_and_others_are_served(tenant, cluster, procs,
                                                                                      settings):
    before = tenant.create(_pod([{"name": f"E{i}", "value": "1"} for i in range(N)]))["metadata"]["resourceVersion"]
    reverse = [{"name": f"E{i}", "value": "2"} for i in reversed(range(N))]
    patch = {"spec": {"containers": [{"name": "app", "env": reverse,
                                      "$setElementOrder/env": [{"name": item["name"]} for item in reverse]}]}}
    answer = _patch_while_another_asks(tenant, cluster, patch, settings)
    # answered in full: merged, then refused, for a pod's env cannot change after creation (Kubernetes')
    assert isinstance(answer, StatusError) and (answer.reason, answer.code) == ("Invalid", 422), answer
    assert "Forbidden: pod updates may not change fields other than" in answer.message
    assert cluster.get("Pod", "victim", "team-a")["metadata"]["resourceVersion"] == before  # nothing written
    _still_serves(tenant, procs)


def test_a_patch_naming_one_container_thousands_of_times_is_413_and_others_are_served(tenant, cluster, procs,
                                                                                     settings):
    before = tenant.create(_pod([]))["metadata"]["resourceVersion"]
    again = [{"name": "app", "env": [{"name": f"E{i}", "value": "x"}]} for i in range(N)]
    answer = _patch_while_another_asks(tenant, cluster, {"spec": {"containers": again}}, settings)
    assert isinstance(answer, StatusError) and (answer.reason, answer.code) == ("RequestEntityTooLarge", 413), answer
    assert answer.message.startswith("The allowed maximum list items merged by a strategic merge patch is ")
    assert cluster.get("Pod", "victim", "team-a")["metadata"]["resourceVersion"] == before  # nothing written
    _still_serves(tenant, procs)
