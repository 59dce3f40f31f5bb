"""The store's cheap Update bookkeeping finds what the plain one finds: `owned_changes` (compared in place)
against `compare` of the owned parts' copies, on chosen and on random pairs; the quick path of
`recorded` moves only the writer's time; a second formatted once per second is still that second."""
from __future__ import annotations

import copy
import random
from datetime import datetime, timezone

import pytest

from api.managedfields import managers, paths, shape
from api.managedfields.fieldset import compare
from api.managedfields.managers import UPDATE, Entry, owned_changes, owned_part
from api.managedfields.record import recorded
from api.times import rfc3339

F = paths.field
POD = shape.of_kind("Pod")


def pod(**meta) -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default", "uid": "u", "resourceVersion": "1",
                         "labels": {"app": "a"}, **meta},
            "spec": {"containers": [{"name": "app", "image": "i:1"}]}, "status": {"phase": "Pending"}}


def same(old: dict, new: dict, subresource: str = "") -> tuple:
    plain = compare(owned_part(old, subresource), owned_part(new, subresource), POD)
    fast = owned_changes(old, new, POD, subresource)
    assert (fast.added, fast.modified, fast.removed) == (plain.added, plain.modified, plain.removed)
    return fast.added, fast.modified, fast.removed


@pytest.mark.parametrize("change, subresource, expected", [
    pytest.param(lambda p: p["metadata"]["labels"].update(app="b"), "",
                 (set(), {(F("metadata"), F("labels"), F("app"))}, set()), id="a-label"),
    pytest.param(lambda p: p["metadata"].update(resourceVersion="9", managedFields=[{"manager": "x"}]), "",
                 (set(), set(), set()), id="server-metadata-only"),
    pytest.param(lambda p: p["status"].update(phase="Running"), "", (set(), set(), set()), id="status-on-main"),
    pytest.param(lambda p: p["status"].update(phase="Running"), "status",
                 (set(), {(F("status"), F("phase"))}, set()), id="status-on-status"),
    pytest.param(lambda p: p["metadata"].pop("labels"), "",
                 (set(), set(), {(F("metadata"), F("labels")), (F("metadata"), F("labels"), F("app"))}),
                 id="labels-removed"),
    pytest.param(lambda p: p["spec"]["containers"].append({"name": "b"}), "",
                 ({(F("spec"), F("containers"), 'k:{"name":"b"}'),
                   (F("spec"), F("containers"), 'k:{"name":"b"}', F("name"))}, set(), set()), id="an-item"),
    pytest.param(lambda p: p.pop("metadata"), "", None, id="no-metadata-falls-back"),
])
def test_owned_changes_as_compare_of_owned_parts(change, subresource, expected):
    old = pod()
    new = copy.deepcopy(old)
    change(new)
    found = same(old, new, subresource)
    if expected is not None:
        assert found == expected


def test_owned_changes_on_random_pairs():
    rnd = random.Random(39)

    def value(depth: int):
        if depth > 3 or rnd.random() < 0.4:
            return rnd.choice([1, "a", None, True, {}, []])
        if rnd.random() < 0.6:
            return {rnd.choice(["a", "b", "name", "uid", "labels"]): value(depth + 1) for _ in range(rnd.randint(0, 3))}
        return [{"name": rnd.choice("xyz"), "image": value(depth + 1)} for _ in range(rnd.randint(0, 2))]

    for _ in range(2000):
        old = pod(**{k: value(2) for k in rnd.sample(["labels", "uid", "finalizers", "managedFields", "x"], 3)})
        new = copy.deepcopy(old) if rnd.random() < 0.5 else pod(x=value(2))
        new["metadata"][rnd.choice(["labels", "uid", "x"])] = value(2)
        new["spec"] = value(1) if rnd.random() < 0.3 else new["spec"]
        same(old, new)
        same(old, new, "status")


def test_recorded_quick_path_moves_only_the_writers_time():
    first = pod()
    first["metadata"]["managedFields"] = recorded(None, first, POD, Entry("ctl", UPDATE, "v1", "t0", frozenset()))
    second = copy.deepcopy(first)
    second["metadata"]["labels"]["app"] = "b"
    out = recorded(first, second, POD, Entry("ctl", UPDATE, "v1", "t1", frozenset()))
    assert [e["time"] for e in out] == ["t1"]
    assert out[0]["fieldsV1"] is second["metadata"]["managedFields"][0]["fieldsV1"]  # the tree is not made again
    assert managers.decode({"metadata": {"managedFields": out}})[0].fields == \
        managers.decode(first)[0].fields


@pytest.mark.parametrize("t", [0.0, 1.5, 59.999, 1764291600.0, 1764291600.25, 1764291601.0, 1764291599.9999])
def test_rfc3339_same_as_formatting_each_time(t):
    assert rfc3339(t) == datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
