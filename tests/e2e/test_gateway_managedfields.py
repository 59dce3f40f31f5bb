"""managedFields through the gateway, after contract 2 made each `fieldsV1` one JSON text on the bus and
in the store: a Kubernetes client still reads the JSON object Kubernetes sends — in a GET as JSON and as
protobuf, in a watch event, in a write's answer — the tree exactly as the maps carried before made it, and
an object it read can be written back as it is. Real store, apiserver and gateway processes."""
from __future__ import annotations

import json
import ssl
import urllib.error
import urllib.request

import pytest

from api import protobuf
from testkit.people import token_of

pytestmark = pytest.mark.shared_plane

PATH = "/api/v1/namespaces/{ns}/configmaps"
# the tree Kubernetes (and kubus before) records for a create of data.a and the label app
CREATED = {"f:data": {".": {}, "f:a": {}}, "f:metadata": {"f:labels": {".": {}, "f:app": {}}}}


def _client(url: str, ca, token: str):
    context = ssl.create_default_context(cafile=str(ca))

    def send(path: str, method: str = "GET", body: dict | None = None, accept: str = "application/json"):
        headers = {"Authorization": f"Bearer {token}", "Accept": accept, "Content-Type": "application/json"}
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, context=context, timeout=30) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as refused:
            return refused.code, refused.read()
    return send


def _owners(obj: dict) -> dict:
    return {e["manager"]: e for e in obj["metadata"]["managedFields"]}


def test_fields_v1_reaches_kubernetes_clients_as_json_objects(cluster, settings, gateway, namespace):
    send = _client(*gateway, token_of(settings, "admin"))
    path = PATH.format(ns=namespace)
    status, raw = send(path)
    assert status == 200, raw[:300]
    listed_rev = json.loads(raw)["metadata"]["resourceVersion"]  # the list starts the watch cache

    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "labels": {"app": "web"}},
          "data": {"a": "1"}}
    status, raw = send(f"{path}?fieldManager=tester", "POST", cm)
    assert status == 201, raw[:300]
    created = json.loads(raw)
    entry = _owners(created)["tester"]
    assert entry["fieldsV1"] == CREATED
    assert (entry["operation"], entry["apiVersion"], entry["fieldsType"]) == ("Update", "v1", "FieldsV1")

    on_bus = cluster.get("ConfigMap", "cfg", namespace)["metadata"]["managedFields"][0]["fieldsV1"]
    assert isinstance(on_bus, str) and json.loads(on_bus) == CREATED  # contract 2: the JSON text

    status, raw = send(f"{path}/cfg")
    assert status == 200 and _owners(json.loads(raw))["tester"]["fieldsV1"] == CREATED
    status, raw = send(f"{path}/cfg", accept=f"{protobuf.MEDIA_TYPE},application/json")
    assert status == 200 and _owners(protobuf.decode_object(raw))["tester"]["fieldsV1"] == CREATED

    got = json.loads(send(f"{path}/cfg")[1])  # written back as read: its trees go in as they came out
    got["data"]["a"] = "2"
    status, raw = send(f"{path}/cfg?fieldManager=tester", "PUT", got)
    assert status == 200, raw[:300]
    updated = _owners(json.loads(raw))["tester"]
    assert updated["fieldsV1"] == CREATED and updated["time"]

    status, raw = send(f"{path}/cfg?fieldManager=other", "PUT", {**json.loads(raw), "data": {"a": "2", "b": "x"}})
    assert status == 200, raw[:300]
    owners = _owners(json.loads(raw))
    assert owners["other"]["fieldsV1"] == {"f:data": {"f:b": {}}} and owners["tester"]["fieldsV1"] == CREATED

    status, raw = send(f"{path}?watch=true&timeoutSeconds=2&resourceVersion={listed_rev}")
    assert status == 200, raw[:300]
    events = [json.loads(line) for line in raw.splitlines() if line.strip()]
    assert [e["type"] for e in events] == ["ADDED", "MODIFIED", "MODIFIED"]
    assert _owners(events[0]["object"])["tester"]["fieldsV1"] == CREATED
    assert _owners(events[-1]["object"]) == owners
