"""Big reads over a large store are cut at the command's revision and built as they are sent."""
from __future__ import annotations

import msgpack

from bus.messages import parse_request
from store.commands import LAZY_OBJECTS, execute
from store.state import State


def _pod(i: int) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i:05}", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}


def _state(pods: int) -> State:
    state = State(lambda: 0.0)
    state.seed_namespaces()
    for i in range(pods):
        state.create("Pod", "default", _pod(i))
    state.take_changes()
    return state


def test_a_big_snapshot_is_cut_when_asked_and_built_as_it_is_read():
    state = _state(LAZY_OBJECTS)
    rev = state.rev
    req = parse_request({"verb": "snapshot", "kind": "*", "options": {"keys": ["pod.#"]}})
    parts = execute(state, req, chunk_bytes=64 << 10)
    assert not isinstance(parts, list)  # nothing built yet
    state.create("Pod", "default", _pod(LAZY_OBJECTS))  # after the cut: not in this snapshot
    state.delete("Pod", "default", "p00000", {})
    bodies = [msgpack.unpackb(p) for p in parts]
    assert len(bodies) > 1 and [b["more"] for b in bodies] == [True] * (len(bodies) - 1) + [False]
    assert {b["rev"] for b in bodies} == {rev}
    names = [item["metadata"]["name"] for b in bodies for item in b["items"]]
    assert len(names) == LAZY_OBJECTS and "p00000" in names and f"p{LAZY_OBJECTS:05}" not in names


def test_a_big_list_is_sorted_and_a_bad_selector_still_fails_at_once():
    state = _state(LAZY_OBJECTS)
    bad = parse_request({"verb": "list", "kind": "Pod", "namespace": "default",
                         "options": {"labelSelector": "a in (b"}})
    [reply] = execute(state, bad, chunk_bytes=64 << 10)
    assert msgpack.unpackb(reply)["status"]["code"] == 400
    req = parse_request({"verb": "list", "kind": "Pod", "namespace": "default", "options": {}})
    names = [i["metadata"]["name"] for p in execute(state, req, 64 << 10) for i in msgpack.unpackb(p)["items"]]
    assert names == sorted(names) and len(names) == LAZY_OBJECTS
