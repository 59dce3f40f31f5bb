"""Create, get, update with compare-and-swap, conflicts and names, through apiserver and store."""
from __future__ import annotations

import copy
import threading
from concurrent.futures import Future

import pytest

from api.status import StatusError

pytestmark = pytest.mark.shared_plane  # one control plane for the module, a namespace per test


def pod(name: str | None = None, generate: str | None = None, **spec) -> dict:
    meta = {"name": name} if name else {"generateName": generate}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"containers": [{"name": "app", "image": "busybox:1.36"}], **spec}}


def test_create_get_update_and_stale_update_conflicts(cluster):
    created = cluster.create(pod("web"))
    assert created["metadata"]["uid"] and created["metadata"]["namespace"] == cluster.namespace
    assert cluster.get("Pod", "web") == created

    changed = copy.deepcopy(created)
    changed["metadata"]["labels"] = {"tier": "front"}
    updated = cluster.update(changed)
    assert int(updated["metadata"]["resourceVersion"]) > int(created["metadata"]["resourceVersion"])
    assert cluster.get("Pod", "web")["metadata"]["labels"] == {"tier": "front"}

    changed["metadata"]["labels"] = {"tier": "back"}  # still carries the old resourceVersion
    with pytest.raises(StatusError) as err:
        cluster.update(changed)
    assert (err.value.reason, err.value.code) == ("Conflict", 409)
    assert "the object has been modified" in err.value.message


def test_create_twice_is_already_exists(cluster):
    cluster.create(pod("twice"))
    with pytest.raises(StatusError) as err:
        cluster.create(pod("twice"))
    assert (err.value.reason, err.value.code) == ("AlreadyExists", 409)
    assert err.value.message == 'pods "twice" already exists'


def test_generate_name_gives_distinct_names(cluster):
    names = {cluster.create(pod(generate="web-"))["metadata"]["name"] for _ in range(20)}
    assert len(names) == 20
    assert all(n.startswith("web-") and len(n) == len("web-") + 5 for n in names)


def test_get_missing_is_not_found(cluster):
    with pytest.raises(StatusError) as err:
        cluster.get("Pod", "nobody")
    assert (err.value.reason, err.value.code) == ("NotFound", 404)


def test_create_in_missing_namespace_is_not_found(cluster):
    with pytest.raises(StatusError) as err:
        cluster.create(pod("lost"), namespace="nowhere")
    assert err.value.reason == "NotFound" and "nowhere" in err.value.message


def test_thousand_concurrent_creates_get_distinct_increasing_revisions(cluster):
    futures = [cluster.request_async("create", "Pod", namespace=cluster.namespace, obj=pod(f"p-{i}"), timeout=60)
               for i in range(1000)]
    replies = [f.result(90) for f in futures]
    assert all(isinstance(r, dict) and r["ok"] for r in replies), [r for r in replies if not isinstance(r, dict)][:3]
    revs = [int(r["object"]["metadata"]["resourceVersion"]) for r in replies]
    assert len(set(revs)) == 1000
    listed = cluster.list("Pod", cluster.namespace)
    assert {p["metadata"]["name"] for p in listed.items} >= {f"p-{i}" for i in range(1000)}
    assert listed.rev >= max(revs)


def test_delete_with_stale_precondition_conflicts(cluster):
    created = cluster.create(pod("guarded"))
    with pytest.raises(StatusError) as err:
        cluster.delete("Pod", "guarded", preconditions={"uid": "not-the-uid"})
    assert err.value.reason == "Conflict"
    cluster.delete("Pod", "guarded", preconditions={"uid": created["metadata"]["uid"]})
    with pytest.raises(StatusError):
        cluster.get("Pod", "guarded")


def test_bound_pod_deletes_gracefully_and_binding_is_a_cas(cluster):
    cluster.create(pod("bound"))
    bound = cluster.bind("bound", "node-1")
    assert bound["spec"]["nodeName"] == "node-1"
    assert {"type": "PodScheduled", "status": "True"}.items() <= bound["status"]["conditions"][0].items()
    with pytest.raises(StatusError) as err:
        cluster.bind("bound", "node-2")
    assert err.value.reason == "Conflict" and 'already assigned to node "node-1"' in err.value.message
    terminating = cluster.delete("Pod", "bound")
    assert terminating["metadata"]["deletionGracePeriodSeconds"] == 30
    assert cluster.get("Pod", "bound")["metadata"]["deletionTimestamp"]
    cluster.delete("Pod", "bound", grace_period=0)  # the kubelet's confirmation
    with pytest.raises(StatusError):
        cluster.get("Pod", "bound")


def test_finalizers_hold_deletion_until_removed(cluster):
    name = f"held-{cluster.namespace}"  # cluster-scoped: named after the test's namespace
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "finalizers": ["example.com/x"]}}
    cluster.create(node)
    held = cluster.delete("Node", name)
    assert held["metadata"]["deletionTimestamp"]
    with pytest.raises(StatusError):
        cluster.update({**held, "metadata": {**held["metadata"], "finalizers": ["example.com/x", "new/one"]}})
    cluster.update({**held, "metadata": {**held["metadata"], "finalizers": []}})
    with pytest.raises(StatusError) as err:
        cluster.get("Node", name)
    assert err.value.reason == "NotFound"


def test_merge_patch_and_status_update(cluster):
    cluster.create(pod("patched"))
    patched = cluster.patch("Pod", "patched", {"metadata": {"labels": {"a": "b"}}})
    assert patched["metadata"]["labels"] == {"a": "b"}
    status = cluster.patch("Pod", "patched", {"status": {"phase": "Running"}}, subresource="status")
    assert status["status"]["phase"] == "Running"
    assert cluster.get("Pod", "patched")["metadata"]["labels"] == {"a": "b"}


def test_a_reply_callback_sends_the_next_request_of_a_chain(cluster):
    """A request made on the connection's own thread (a reply's callback) is sent at once, not handed
    back to the loop for a later turn, as the benchmarks' chains of CAS updates rely on; every link
    gets its answer."""
    created = cluster.create(pod("chain"))
    done: Future = Future()
    threads: set[str] = set()
    in_flight: list[int] = []  # calls pending right after each link sent the next

    def step(n: int, obj: dict) -> None:
        obj["metadata"]["labels"] = {"n": str(n)}
        fut = cluster.request_async("update", "Pod", namespace=cluster.namespace, name="chain", obj=obj,
                                    resource_version=obj["metadata"]["resourceVersion"], timeout=30)
        fut.add_done_callback(lambda f: next_or_done(n, f.result()))

    def next_or_done(n: int, reply) -> None:
        threads.add(threading.current_thread().name)
        if not isinstance(reply, dict) or not reply["ok"] or n == 20:
            done.set_result(reply)
        else:
            step(n + 1, reply["object"])
            in_flight.append(len(cluster.rpc.pending))

    step(1, created)
    last = done.result(60)
    assert last["ok"] and last["object"]["metadata"]["labels"] == {"n": "20"}
    assert threads == {f"bus-{cluster.bus.connection_name}"}  # every link ran on the connection's thread
    assert in_flight == [1] * 19  # sent at once: already waiting for its reply


def test_a_namespace_view_sends_there_and_leaves_its_client_as_it_was(cluster, plane):
    """What the shared plane's tests stand on: `in_namespace` places requests that name no namespace,
    on the client's connection, and the client itself still sends them to `default`."""
    made = cluster.create(pod("placed"))
    assert made["metadata"]["namespace"] == cluster.namespace != "default"
    assert cluster.bus is plane.client.bus and plane.client.namespace == "default"
    with pytest.raises(StatusError) as err:
        plane.client.get("Pod", "placed")
    assert err.value.message == 'pods "placed" not found'
