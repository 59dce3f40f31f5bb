"""A bad request is the sender's problem, never the cluster's (issue 8): the apiserver and the store
answer it and go on serving, over the real broker with real processes."""
from __future__ import annotations

import uuid

import msgpack
import pytest

from api.status import StatusError
from testkit.waiting import wait_until
from tests.helpers import raw_call, read_queue


def _pod(name: str, **meta) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, **meta},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}


def _request(verb: str, kind: str = "Pod", namespace: str = "default", **fields) -> bytes:
    return msgpack.packb({"verb": verb, "kind": kind, "namespace": namespace, "name": None, "object": None,
                          "resourceVersion": None, "options": {}, **fields})


def _alive(procs) -> None:
    assert [p.poll() for p in procs.procs] == [None] * len(procs.procs), "an actor process exited"


@pytest.mark.shared_plane
@pytest.mark.parametrize("options, field", [
    pytest.param({"fieldSelector": 5}, "options.fieldSelector", id="field-selector-int"),
    pytest.param({"labelSelector": ["a"]}, "options.labelSelector", id="label-selector-list"),
    pytest.param({"limit": 3}, "options.limit", id="unknown-option"),
])
def test_bad_list_options_are_400_naming_the_field(cluster, procs, options, field):
    with pytest.raises(StatusError) as err:
        cluster.request("list", "Pod", options=options)
    assert (err.value.reason, err.value.code) == ("BadRequest", 400)
    assert err.value.causes[0].field == field
    _alive(procs)
    assert cluster.create(_pod("after"))["metadata"]["name"] == "after"


@pytest.mark.shared_plane
def test_the_issue_repro_list_with_an_int_field_selector(cluster, procs):
    with pytest.raises(StatusError) as err:
        cluster.list("Pod", field_selector=5)
    assert err.value.code == 400 and "options.fieldSelector" in err.value.message
    _alive(procs)


@pytest.mark.shared_plane
@pytest.mark.parametrize("options, field", [
    pytest.param({"gracePeriodSeconds": -3}, "options.gracePeriodSeconds", id="negative-grace"),
    pytest.param({"gracePeriodSeconds": True}, "options.gracePeriodSeconds", id="bool-grace"),
    pytest.param({"propagationPolicy": "Eventually"}, "options.propagationPolicy", id="bad-policy"),
    pytest.param({"preconditions": {"uid": 7}}, "options.preconditions.uid", id="uid-int"),
    pytest.param({"preconditions": "x"}, "options.preconditions", id="preconditions-string"),
])
def test_bad_delete_options_are_400_naming_the_field(cluster, procs, options, field):
    cluster.create(_pod("victim"))
    with pytest.raises(StatusError) as err:
        cluster.request("delete", "Pod", namespace=cluster.namespace, name="victim", options=options)
    assert err.value.code == 400 and err.value.causes[0].field == field
    assert cluster.get("Pod", "victim")  # nothing happened to it
    _alive(procs)


@pytest.mark.shared_plane
def test_store_checks_commands_again_and_answers_the_rest_of_the_batch(cluster, procs, settings):
    """Commands straight to `{c}.store`, bypassing the apiserver: a bad one is answered 400 or 500, the
    good ones of the same batch are applied and answered."""
    ns = cluster.namespace
    bodies = [_request("list", namespace=ns, options={"fieldSelector": 5}),
              _request("create", namespace=ns, object=_pod("good-1")),
              _request("update", namespace=ns, name="good-1",  # raises inside the store
                       object={"metadata": {"name": "good-1"}, "spec": {"containers": 1.5}}),
              _request("update", namespace=ns, name="x", object={"metadata": 5}),
              _request("snapshot", kind="*", namespace=ns, options={"keys": "pod.#"}),
              _request("create", namespace=ns, object=_pod("good-2"))]
    replies = raw_call(procs.url_of("actors.apiserver", ()), f"{settings.cluster}.store", "store", bodies)
    assert len(replies) == 6
    codes = sorted((r.get("status") or {}).get("code", 200) for r in replies)
    assert codes == [200, 200, 400, 400, 400, 500], codes
    _alive(procs)
    assert {p["metadata"]["name"] for p in cluster.list("Pod").items} == {"good-1", "good-2"}


@pytest.mark.shared_plane
def test_an_object_over_the_size_limit_is_413(cluster, procs, settings):
    huge = _pod("huge", annotations={"blob": "x" * (settings.max_object_bytes + 10_000)})
    with pytest.raises(StatusError) as err:
        cluster.create(huge)
    assert (err.value.reason, err.value.code) == ("RequestEntityTooLarge", 413)
    assert err.value.message == f"Request entity too large: limit is {settings.max_object_bytes}"
    # just over the limit once stored (metadata added by the store), straight to the store
    near = _pod("near", annotations={"blob": "x" * (settings.max_object_bytes - 100)})
    [reply] = raw_call(procs.url_of("actors.apiserver", ()), f"{settings.cluster}.store", "store",
                       [_request("create", namespace=cluster.namespace, object=near)])
    assert reply["status"]["reason"] == "RequestEntityTooLarge"
    _alive(procs)
    assert cluster.create(_pod("small"))


@pytest.mark.shared_plane
def test_dedupe_is_per_user_not_per_message_id(cluster, procs, settings):
    """Two users who happen to pick the same message id get two effects and their own answers."""
    mid = uuid.uuid4().hex
    store = f"{settings.cluster}.store"
    apiserver = procs.url_of("actors.apiserver", ())  # commands in the users' names, as an apiserver sends
    ns = cluster.namespace
    [alice] = raw_call(apiserver, store, "store", [_request("create", namespace=ns, object=_pod("alice-pod"))],
                       message_id=mid, headers={"x-kubus-user": "alice"})
    [bob] = raw_call(apiserver, store, "store", [_request("create", namespace=ns, object=_pod("bob-pod"))],
                     message_id=mid, headers={"x-kubus-user": "bob"})
    assert alice["object"]["metadata"]["name"] == "alice-pod"
    assert bob["object"]["metadata"]["name"] == "bob-pod"
    [again] = raw_call(apiserver, store, "store", [_request("create", namespace=ns, object=_pod("bob-pod"))],
                       message_id=mid, headers={"x-kubus-user": "bob"})
    assert again == bob  # a retry gets the first answer, not AlreadyExists


@pytest.mark.shared_plane
def test_patches_without_message_ids_never_share_an_answer(cluster, settings):
    cluster.create(_pod("patched"))
    for value in ("one", "two"):
        patch = {"metadata": {"labels": {"n": value}}}
        [reply] = raw_call(settings.amqp_url, f"{settings.cluster}.api", "apiserver",
                           [_request("patch", namespace=cluster.namespace, name="patched", object=patch)])
        assert reply["object"]["metadata"]["labels"] == {"n": value}


@pytest.mark.shared_plane
def test_update_whose_name_differs_from_the_objects_is_400(cluster):
    pod = cluster.create(_pod("named"))
    pod["metadata"]["name"] = "other"
    with pytest.raises(StatusError) as err:
        cluster.request("update", "Pod", namespace=cluster.namespace, name="named", obj=pod)
    assert err.value.code == 400
    assert err.value.message == "the name of the object (other) does not match the name on the URL (named)"


def test_a_reply_to_that_is_not_direct_reply_to_is_dead_lettered(cluster, procs, settings):
    """Else anyone could have the apiserver or the store publish into any queue (here: the store's)."""
    names = [f"{settings.cluster}.api", f"{settings.cluster}.store"]
    senders = [settings.amqp_url, procs.url_of("actors.apiserver", ())]
    for exchange, key, sender in zip(names, ("apiserver", "store"), senders):
        raw_call(sender, exchange, key, [_request("create", object=_pod(f"via-{key}"))], timeout=0,
                 reply_to=f"{settings.cluster}.store")
    dead: list = []
    wait_until(lambda: dead.extend(read_queue(settings.admin_url, f"{settings.cluster}.dead")) or len(dead) >= 2,
               20, what="two dead letters")
    assert all(props.headers["x-kubus-dead-reason"].startswith("reply-to") for props, _ in dead)
    _alive(procs)
    assert [p["metadata"]["name"] for p in cluster.list("Pod").items] == []


@pytest.mark.shared_plane
@pytest.mark.parametrize("binding, field", [
    pytest.param({"target": {"name": 5}}, "object.target.name", id="name-int"),
    pytest.param({"target": ["node-1"]}, "object.target", id="target-list"),
    pytest.param({"target": {"kind": "Node"}}, "object.target.name", id="no-name"),
])
def test_a_bind_with_a_bad_target_is_400_naming_the_field(cluster, procs, binding, field):
    cluster.create(_pod("to-bind"))
    with pytest.raises(StatusError) as err:
        cluster.request("bind", "Pod", namespace=cluster.namespace, name="to-bind", obj=binding)
    assert err.value.code == 400 and err.value.causes[0].field == field
    assert not cluster.get("Pod", "to-bind")["spec"].get("nodeName")
    _alive(procs)
