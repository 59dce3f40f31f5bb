"""Field sets, merge, removal, Update bookkeeping and Apply conflicts, table-driven, as
structured-merge-diff computes them."""
from __future__ import annotations

import copy

import pytest

from api.managedfields import managers, paths, shape
from api.managedfields.fieldset import compare, of
from api.managedfields.managers import APPLY, UPDATE, Entry
from api.managedfields.merge import merge, remove
from api.managedfields.record import recorded
from api.status import StatusError

DEPLOY = shape.of_kind("Deployment")
F = paths.field


def dep(replicas=2, labels=None, containers=None) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "labels": labels if labels is not None else {"app": "web"}},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"spec": {"containers": containers or [{"name": "app", "image": "a:1"}]}}}}


def who(manager: str, operation: str = APPLY, subresource: str = "") -> Entry:
    return Entry(manager, operation, "apps/v1", "2024-01-01T00:00:00Z", frozenset(), subresource)


@pytest.mark.parametrize("obj, kind, expected", [
    pytest.param({"spec": {"replicas": 1}}, "Deployment", {(F("spec"), F("replicas"))}, id="scalar"),
    pytest.param({"spec": {"selector": {"matchLabels": {"a": "b"}}}}, "Deployment", {(F("spec"), F("selector"))},
                 id="atomic-struct"),
    pytest.param({"metadata": {"finalizers": ["x"]}}, "ConfigMap",
                 {(F("metadata"), F("finalizers"), 'v:"x"')}, id="set"),
    pytest.param({"spec": {"containers": [{"name": "c"}]}}, "Pod",
                 {(F("spec"), F("containers"), 'k:{"name":"c"}'),
                  (F("spec"), F("containers"), 'k:{"name":"c"}', F("name"))}, id="keyed-list"),
    pytest.param({"spec": {"tolerations": [{"key": "k"}]}}, "Pod", {(F("spec"), F("tolerations"))}, id="atomic-list"),
    pytest.param({"data": {}}, "ConfigMap", {(F("data"),)}, id="empty-map"),
])
def test_field_sets(obj, kind, expected):
    assert of(obj, shape.of_kind(kind)) == expected


def test_fields_v1_round_trip_marks_members_with_children():
    fields = {(F("a"),), (F("a"), F("b")), (F("c"), 'k:{"name":"x"}')}
    tree = paths.encode(fields)
    assert tree == {"f:a": {".": {}, "f:b": {}}, "f:c": {'k:{"name":"x"}': {}}}
    assert paths.decode(tree) == fields


@pytest.mark.parametrize("path, text", [
    pytest.param((F("spec"), F("replicas")), ".spec.replicas", id="fields"),
    pytest.param((F("c"), 'k:{"name":"x"}', F("image")), '.c[name="x"].image', id="key"),
    pytest.param((F("f"), 'v:"x"'), '.f[="x"]', id="value"),
])
def test_path_text(path, text):
    assert paths.text(path) == text


def test_compare_finds_added_modified_removed():
    old, new = dep(2, {"app": "web", "gone": "x"}), dep(3, {"app": "web", "new": "y"})
    change = compare(old, new, DEPLOY)
    assert change.modified == {(F("spec"), F("replicas"))}
    assert change.added == {(F("metadata"), F("labels"), F("new"))}
    assert change.removed == {(F("metadata"), F("labels"), F("gone"))}


def test_merge_keyed_lists_by_key_and_replaces_atomic():
    live = dep(containers=[{"name": "app", "image": "a:1"}, {"name": "side", "image": "s:1"}])
    merged = merge(live, {"spec": {"template": {"spec": {"containers": [{"name": "side", "image": "s:2"}]}}},
                          "metadata": {"labels": None}}, DEPLOY)
    assert merged["spec"]["template"]["spec"]["containers"] == [{"name": "app", "image": "a:1"},
                                                                 {"name": "side", "image": "s:2"}]
    assert "labels" not in merged["metadata"]


def test_remove_drops_emptied_parents():
    out = remove(dep(labels={"app": "web"}), {(F("metadata"), F("labels"), F("app"))}, DEPLOY)
    assert "labels" not in out["metadata"] and out["metadata"]["name"] == "web"


def test_update_takes_changed_fields_from_other_managers():
    entries = managers.update([], None, dep(), DEPLOY, who("creator", UPDATE))
    assert (F("spec"), F("replicas")) in entries[0].fields
    after = managers.update(entries, dep(), dep(5), DEPLOY, who("scaler", UPDATE))
    by = {e.manager: e.fields for e in after}
    assert by["scaler"] == {(F("spec"), F("replicas"))}
    assert (F("spec"), F("replicas")) not in by["creator"]


@pytest.mark.parametrize("force", [False, True])
def test_apply_conflicts_with_another_managers_different_value(force):
    entries = managers.update([], None, dep(2), DEPLOY, who("kubectl-client-side-apply", UPDATE))
    config = dep(3)
    if not force:
        with pytest.raises(StatusError) as err:
            managers.apply(entries, dep(2), config, DEPLOY, who("kubectl"), False)
        assert err.value.code == 409
        assert err.value.message == ('Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" '
                                     'using apps/v1: .spec.replicas')
        assert [(c.field, c.reason) for c in err.value.causes] == [(".spec.replicas", "FieldManagerConflict")]
        return
    obj, after = managers.apply(entries, dep(2), config, DEPLOY, who("kubectl"), True)
    by = {e.manager: e.fields for e in after}
    assert obj["spec"]["replicas"] == 3 and (F("spec"), F("replicas")) in by["kubectl"]
    assert (F("spec"), F("replicas")) not in by["kubectl-client-side-apply"]


def test_apply_with_the_same_value_shares_ownership():
    entries = managers.update([], None, dep(2), DEPLOY, who("other", UPDATE))
    _, after = managers.apply(entries, dep(2), dep(2), DEPLOY, who("kubectl"), False)
    assert all((F("spec"), F("replicas")) in e.fields for e in after)


def test_apply_removes_what_the_manager_dropped_unless_another_owns_it():
    live, entries = managers.apply([], {}, dep(labels={"app": "web", "tier": "x"}), DEPLOY, who("a"), False)
    live, entries = managers.apply(entries, live, dep(labels={"app": "web", "tier": "x"}), DEPLOY, who("b"), False)
    live, entries = managers.apply(entries, live, dep(labels={"app": "web"}), DEPLOY, who("a"), False)
    assert live["metadata"]["labels"] == {"app": "web", "tier": "x"}  # b still applies it
    live, entries = managers.apply(entries, live, dep(labels={"app": "web"}), DEPLOY, who("b"), False)
    assert live["metadata"]["labels"] == {"app": "web"}


def test_multiple_conflicts_are_listed_by_manager():
    entries = managers.update([], None, dep(2, {"app": "web"}), DEPLOY, who("m1", UPDATE))
    with pytest.raises(StatusError) as err:
        managers.apply(entries, dep(2, {"app": "web"}), dep(3, {"app": "x"}), DEPLOY, who("kubectl"), False)
    assert err.value.message == ('Apply failed with 2 conflicts: conflicts with "m1" using apps/v1:\n'
                                 '- .metadata.labels.app\n- .spec.replicas')


def test_recorded_only_moves_the_time_when_the_manager_changes_its_own_fields():
    first = dep()
    first["metadata"]["managedFields"] = recorded(None, first, DEPLOY, who("ctl", UPDATE))
    second = copy.deepcopy(first)
    second["spec"]["replicas"] = 9
    later = Entry("ctl", UPDATE, "apps/v1", "2025-01-01T00:00:00Z", frozenset())
    out = recorded(first, second, DEPLOY, later)
    assert out[0]["time"] == "2025-01-01T00:00:00Z" and out[0]["fieldsV1"] == first["metadata"]["managedFields"][0]["fieldsV1"]


def test_custom_kinds_lists_are_atomic_unless_the_schema_says_otherwise():
    schema = {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string"}},
        "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port"],
                  "items": {"type": "object"}}}}}}
    fields = of({"spec": {"tags": ["a"], "ports": [{"port": 80}]}}, shape.of_kind("Widget", schema))
    assert (F("spec"), F("tags")) in fields
    assert (F("spec"), F("ports"), 'k:{"port":80}', F("port")) in fields
