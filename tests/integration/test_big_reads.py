"""A list or snapshot larger than one message comes back in parts cut at one revision, sent a slice
at a time while the store goes on answering writes."""
from __future__ import annotations

from concurrent.futures import wait

from runtime.client import Client
from tests.conftest import wait_serving
from tests.integration.test_crud import pod

SMALL = {"KUBUS_MAX_MESSAGE_BYTES": "65536", "KUBUS_MAX_OBJECT_BYTES": "16384"}


def test_a_snapshot_over_many_messages_is_whole_and_writes_go_on(procs, settings):
    procs.start("store", **SMALL)
    procs.start("actors.apiserver", **SMALL)
    client = Client(settings.with_(max_message_bytes=65536, max_object_bytes=16384), name="big")
    wait_serving(client)
    wait([client.request_async("create", "Pod", namespace="default", obj=pod(f"p{i}")) for i in range(400)], 60)
    snapshot = client.request_async("snapshot", "*", options={"keys": ["pod.#"]}, timeout=30)
    writes = [client.request_async("create", "Pod", namespace="default", obj=pod(f"late{i}")) for i in range(20)]
    reply = snapshot.result(40)
    assert reply["ok"] and not reply["more"]
    names = [p["metadata"]["name"] for p in reply["items"]]
    assert len(names) == len(set(names)) >= 400
    assert all(int(p["metadata"]["resourceVersion"]) <= reply["rev"] for p in reply["items"])
    assert all(f.result(30)["ok"] for f in writes)
    listed = client.list("Pod", "default")
    assert len(listed.items) == 420
    client.close()
