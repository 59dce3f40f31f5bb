"""kubectl's everyday verbs, the pure parts: generators, JSON patch, wait's conditions and watch
loop, the events and api-resources tables."""
from __future__ import annotations

import queue
from datetime import datetime, timezone

import click
import pytest

from api.patch.jsonpatch import apply_json_patch
from api.registry import lookup
from api.status import StatusError
from cli.verbs import container_name, deployment_manifest, key_values, manifest_namespace, pod_manifest, set_images
from cli.verbs_patch import object_name, read_modify_write, targets
from cli.verbs_tables import event_rows, last_seen, resource_rows
from cli.verbs_wait import Condition, parse_duration, until_condition, until_deleted
from runtime.cache import Delta

DOC = {"metadata": {"name": "web", "labels": {"a": "1"}}, "spec": {"list": ["x", "y"]}}


@pytest.mark.parametrize("ops, want", [
    pytest.param([{"op": "add", "path": "/metadata/labels/b", "value": "2"}],
                 {**DOC, "metadata": {"name": "web", "labels": {"a": "1", "b": "2"}}}, id="add-member"),
    pytest.param([{"op": "add", "path": "/spec/list/1", "value": "new"}],
                 {**DOC, "spec": {"list": ["x", "new", "y"]}}, id="add-inserts-at-index"),
    pytest.param([{"op": "add", "path": "/spec/list/-", "value": "z"}],
                 {**DOC, "spec": {"list": ["x", "y", "z"]}}, id="add-appends-with-dash"),
    pytest.param([{"op": "remove", "path": "/spec/list/0"}], {**DOC, "spec": {"list": ["y"]}}, id="remove-item"),
    pytest.param([{"op": "replace", "path": "/metadata/labels/a", "value": "9"}],
                 {**DOC, "metadata": {"name": "web", "labels": {"a": "9"}}}, id="replace-member"),
    pytest.param([{"op": "replace", "path": "/spec/list/1", "value": "Y"}],
                 {**DOC, "spec": {"list": ["x", "Y"]}}, id="replace-item"),
    pytest.param([{"op": "test", "path": "/metadata/name", "value": "web"},
                  {"op": "remove", "path": "/spec"}], {"metadata": DOC["metadata"]}, id="test-then-remove"),
    pytest.param([{"op": "move", "from": "/metadata/labels", "path": "/spec/labels"}],
                 {"metadata": {"name": "web"}, "spec": {"list": ["x", "y"], "labels": {"a": "1"}}}, id="move"),
    pytest.param([{"op": "copy", "from": "/spec/list/0", "path": "/spec/list/-"}],
                 {**DOC, "spec": {"list": ["x", "y", "x"]}}, id="copy"),
    pytest.param([{"op": "add", "path": "/metadata/labels/app.kubernetes.io~1name", "value": "w"}],
                 {**DOC, "metadata": {"name": "web", "labels": {"a": "1", "app.kubernetes.io/name": "w"}}},
                 id="escaped-slash"),
    pytest.param([{"op": "replace", "path": "", "value": {"whole": 1}}], {"whole": 1}, id="replace-the-document"),
    pytest.param([{"op": "add", "path": "/spec/list/01", "value": 1}], {**DOC, "spec": {"list": ["x", 1, "y"]}},
                 id="leading-zero-is-an-index-to-json-patch-v4"),
    pytest.param([{"op": "add", "path": "/x"}], {**DOC, "x": None}, id="no-value-adds-null"),
])
def test_json_patch_applies_rfc_6902(ops, want):
    before = str(DOC)
    assert apply_json_patch(DOC, ops) == want
    assert str(DOC) == before  # the input is left as it was


@pytest.mark.parametrize("ops, error", [
    pytest.param([{"op": "test", "path": "/metadata/name", "value": "db"}],
                 "testing value /metadata/name failed: test failed", id="failed-test"),
    pytest.param([{"op": "remove", "path": "/metadata/missing"}],
                 "error in remove for path: '/metadata/missing': Unable to remove nonexistent key: missing: "
                 "missing value", id="remove-missing"),
    pytest.param([{"op": "add", "path": "/spec/list/5", "value": 1}],
                 "error in add for path: '/spec/list/5': Unable to access invalid index: 5: invalid index referenced",
                 id="index-past-end"),
    pytest.param([{"op": "add", "path": "/a/b", "value": 1}],
                 'add operation does not apply: doc is missing path: "/a/b": missing value', id="missing-parent"),
    pytest.param([{"op": "add", "path": "", "value": 1}],
                 'add operation does not apply: doc is missing path: "": missing value', id="add-to-the-root"),
    pytest.param([{"op": "frobnicate", "path": "/x"}], "Unexpected kind: frobnicate", id="unknown-op"),
    pytest.param([{"op": "move", "from": "/metadata", "path": "/metadata/x"}],
                 "move operation does not apply: doc is missing destination path: /metadata/x: missing value",
                 id="move-into-child"),
])
def test_json_patch_refuses_as_the_apiserver_does(ops, error):
    with pytest.raises(StatusError) as err:
        apply_json_patch(DOC, ops)
    assert (err.value.code, err.value.message) == (422, "the server rejected our request due to an error in our request")
    assert [c.message for c in err.value.causes] == [error]


def test_json_patch_that_is_not_a_list_is_a_bad_request():
    with pytest.raises(StatusError) as err:
        apply_json_patch(DOC, {"op": "add"})
    assert (err.value.reason, err.value.message) == (
        "BadRequest", "json: cannot unmarshal object into Go value of type jsonpatch.Patch")


@pytest.mark.parametrize("image, want", [
    pytest.param("nginx:1.25", "nginx", id="tag"),
    pytest.param("registry.io:5000/team/app@sha256:abc", "app", id="registry-port-and-digest"),
    pytest.param("reg.io/my_app:1", "my-app-xxxxx", id="underscore-earns-suffix"),
    pytest.param("redis.v2", "redis-v2-xxxxx", id="dot-earns-suffix"),
])
def test_container_name_as_kubectl_create_deployment(image, want):
    assert container_name(image, suffix=lambda: "xxxxx") == want


def test_deployment_manifest_is_kubectls():
    d = deployment_manifest("web", ("nginx:1.25",), 2, ("sleep", "100"))
    assert d["metadata"] == {"name": "web", "labels": {"app": "web"}}
    assert d["spec"]["selector"] == {"matchLabels": {"app": "web"}}
    assert d["spec"]["template"]["metadata"]["labels"] == {"app": "web"}
    assert d["spec"]["replicas"] == 2
    assert d["spec"]["template"]["spec"]["containers"] == [{"name": "nginx", "image": "nginx:1.25",
                                                            "command": ["sleep", "100"]}]


@pytest.mark.parametrize("labels, args, as_command, want_labels, want_container", [
    pytest.param({}, (), False, {"run": "x"}, {"name": "x", "image": "busybox"}, id="defaults"),
    pytest.param({"a": "b"}, ("sleep", "9"), False, {"a": "b"}, {"name": "x", "image": "busybox",
                                                                 "args": ["sleep", "9"]}, id="labels-replace-run"),
    pytest.param({}, ("sleep", "9"), True, {"run": "x"}, {"name": "x", "image": "busybox",
                                                          "command": ["sleep", "9"]}, id="command"),
])
def test_pod_manifest_is_kubectl_runs(labels, args, as_command, want_labels, want_container):
    pod = pod_manifest("x", "busybox", "Never", labels, {}, args, as_command)
    assert pod["metadata"]["labels"] == want_labels
    assert pod["spec"] == {"containers": [want_container], "dnsPolicy": "ClusterFirst", "restartPolicy": "Never"}


def test_pod_manifest_env_keeps_order():
    env = pod_manifest("x", "i", "Always", {}, key_values(["B=2", "A=1=1"], "env"))["spec"]["containers"][0]["env"]
    assert env == [{"name": "B", "value": "2"}, {"name": "A", "value": "1=1"}]


@pytest.mark.parametrize("item", ["novalue", "=v"])
def test_key_values_refuses_what_is_no_pair(item):
    with pytest.raises(click.BadParameter, match=f"invalid label spec: {item}"):
        key_values([item], "label")


@pytest.mark.parametrize("images, want_images, missing", [
    pytest.param({"web": "nginx:2"}, ["old", "nginx:2", "old"], [], id="one-container"),
    pytest.param({"init": "i:2"}, ["i:2", "old", "old"], [], id="init-container"),
    pytest.param({"*": "all:1"}, ["all:1", "all:1", "all:1"], [], id="star-sets-all"),
    pytest.param({"web": "n:3", "nope": "x"}, ["old", "n:3", "old"], ["nope"], id="missing-is-reported"),
])
def test_set_images(images, want_images, missing):
    spec = {"initContainers": [{"name": "init", "image": "old"}],
            "containers": [{"name": "web", "image": "old"}, {"name": "log", "image": "old"}]}
    assert set_images(spec, images) == missing
    assert [c["image"] for c in spec["initContainers"] + spec["containers"]] == want_images


@pytest.mark.parametrize("args, want", [
    pytest.param(("pod/a",), [("Pod", "a")], id="slashed"),
    pytest.param(("deploy/a", "po/b"), [("Deployment", "a"), ("Pod", "b")], id="several-kinds"),
    pytest.param(("pods", "a", "b"), [("Pod", "a"), ("Pod", "b")], id="kind-then-names"),
])
def test_targets(args, want):
    assert [(info.kind, name) for info, name in targets(args)] == want


@pytest.mark.parametrize("args", [(), ("pod",), ("pod/a", "b")])
def test_targets_refuses(args):
    with pytest.raises(click.UsageError):
        targets(args)


def test_object_name_carries_the_group():
    assert [object_name(lookup(k), "x") for k in ("pod", "deploy", "role")] == \
        ["pod/x", "deployment.apps/x", "role.rbac.authorization.k8s.io/x"]


def test_manifest_namespace():
    pod, ns = lookup("Pod"), lookup("Namespace")
    assert manifest_namespace(pod, {"metadata": {}}, None) == "default"
    assert manifest_namespace(pod, {"metadata": {"namespace": "a"}}, None) == "a"
    assert manifest_namespace(pod, {"metadata": {}}, "b") == "b"
    assert manifest_namespace(ns, {"metadata": {"namespace": "a"}}, "b") is None
    with pytest.raises(click.ClickException, match="You must pass '--namespace=a'"):
        manifest_namespace(pod, {"metadata": {"namespace": "a"}}, "b")


class Store:
    """A client's get and update over one object, losing the first `conflicts` updates."""

    def __init__(self, obj: dict, conflicts: int = 0):
        self.obj, self.conflicts, self.updates = obj, conflicts, 0

    def get(self, kind, name, ns):
        return self.obj

    def update(self, obj):
        self.updates += 1
        if self.conflicts:
            self.conflicts -= 1
            self.obj = {**self.obj, "metadata": {**self.obj["metadata"], "resourceVersion": "99"}}
            raise StatusError("Conflict", "the object has been modified")
        self.obj = obj
        return obj


def _relabel(obj):
    obj["metadata"]["labels"] = {"b": "2"}
    return obj


@pytest.mark.parametrize("conflicts, change, want_updates, changed", [
    pytest.param(0, _relabel, 1, True, id="first-write"),
    pytest.param(2, _relabel, 3, True, id="again-on-conflict"),
    pytest.param(0, lambda obj: obj, 0, False, id="no-change-no-write"),
])
def test_read_modify_write(conflicts, change, want_updates, changed):
    store = Store({"kind": "Pod", "metadata": {"name": "p", "resourceVersion": "1"}}, conflicts)
    stored, did = read_modify_write(store, lookup("Pod"), "p", "default", change)
    assert (store.updates, did) == (want_updates, changed)
    assert stored["metadata"].get("labels") == ({"b": "2"} if changed else None)


def test_read_modify_write_gives_up_on_a_conflict_that_keeps_coming():
    store = Store({"kind": "Pod", "metadata": {"name": "p", "resourceVersion": "1"}}, conflicts=99)
    with pytest.raises(StatusError, match="modified"):
        read_modify_write(store, lookup("Pod"), "p", "default", _relabel)


@pytest.mark.parametrize("text, seconds", [
    ("30s", 30), ("1m30s", 90), ("500ms", 0.5), ("2h", 7200), ("0", 0), ("1.5s", 1.5), ("-1s", -1),
])
def test_parse_duration(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text, error", [("30", "missing unit"), ("3x", "invalid duration"), ("", "missing unit"),
                                         ("s", "invalid duration")])
def test_parse_duration_refuses(text, error):
    with pytest.raises(click.BadParameter, match=error):
        parse_duration(text)


def _obj(conditions, generation=None, observed=None, name="p", rv=1, uid="u1"):
    meta = {"name": name, "resourceVersion": str(rv), "uid": uid,
            **({"generation": generation} if generation is not None else {})}
    status = {"conditions": conditions, **({"observedGeneration": observed} if observed is not None else {})}
    return {"kind": "Pod", "metadata": meta, "status": status}


READY = [{"type": "Ready", "status": "True"}]


@pytest.mark.parametrize("condition, obj, met", [
    pytest.param("Ready", _obj(READY), True, id="ready"),
    pytest.param("ready", _obj(READY), True, id="name-any-case"),
    pytest.param("Ready", _obj([{"type": "Ready", "status": "False"}]), False, id="not-ready"),
    pytest.param("Ready=false", _obj([{"type": "Ready", "status": "False"}]), True, id="wanted-false"),
    pytest.param("Ready", _obj([]), False, id="no-conditions"),
    pytest.param("Available", _obj(READY, generation=3, observed=2), False, id="other-type"),
    pytest.param("Ready", _obj(READY, generation=3, observed=2), False, id="stale-generation"),
    pytest.param("Ready", _obj(READY, generation=3, observed=3), True, id="observed-generation"),
])
def test_condition(condition, obj, met):
    assert Condition.parse(condition).met(obj) is met


class FakeWatch:
    """Deltas in order, then queue.Empty as a watch that waited out its timeout."""

    def __init__(self, *deltas: Delta):
        self.deltas = list(deltas)

    def next(self, timeout=None):
        if not self.deltas:
            raise queue.Empty
        return self.deltas.pop(0)


class Getter:
    def __init__(self, obj: dict | None):
        self.obj = obj

    def get(self, kind, name, ns):
        if self.obj is None:
            raise StatusError("NotFound", f'pods "{name}" not found')
        return self.obj


def delta(type_: str, obj: dict, rev: int) -> Delta:
    return Delta(type_, "Pod", obj, rev)


POD, FAR = lookup("Pod"), float("inf")


@pytest.mark.parametrize("deltas, met", [
    pytest.param([delta("MODIFIED", _obj(READY, rv=2), 2)], True, id="becomes-ready"),
    pytest.param([delta("ADDED", _obj(READY, rv=1), 1)], False, id="older-revision-ignored"),
    pytest.param([delta("MODIFIED", _obj(READY, name="other", rv=2), 2)], False, id="other-object-ignored"),
    pytest.param([delta("MODIFIED", _obj([], rv=2), 2)], False, id="timed-out"),
])
def test_until_condition_follows_the_watch(deltas, met):
    assert until_condition(Getter(_obj([])), FakeWatch(*deltas), POD, "p", "default", Condition("Ready"),
                           FAR) is met


def test_until_condition_met_already_needs_no_watch():
    assert until_condition(Getter(_obj(READY)), FakeWatch(), POD, "p", "default", Condition("Ready"), FAR)


def test_until_condition_object_deleted_is_not_found():
    with pytest.raises(StatusError, match='pods "p" not found'):
        until_condition(Getter(_obj([])), FakeWatch(delta("DELETED", _obj([], rv=2), 2)), POD, "p", "default",
                        Condition("Ready"), FAR)


def test_until_condition_stops_at_the_deadline():
    watch = FakeWatch(delta("MODIFIED", _obj(READY, rv=2), 2))
    assert until_condition(Getter(_obj([])), watch, POD, "p", "default", Condition("Ready"), 10.0,
                           clock=lambda: 10.0) is False
    assert watch.deltas  # not read: the time was up


@pytest.mark.parametrize("current, deltas, result", [
    pytest.param(None, [], None, id="absent-from-the-start"),
    pytest.param(None, [delta("ADDED", _obj([], rv=1), 1)], True, id="deleted-between-the-watch-and-the-read"),
    pytest.param(_obj([]), [delta("DELETED", _obj([], rv=2), 2)], True, id="deleted"),
    pytest.param(_obj([]), [delta("ADDED", _obj([], rv=3, uid="u2"), 3)], True, id="replaced-by-another-uid"),
    pytest.param(_obj([]), [delta("MODIFIED", _obj(READY, rv=2), 2)], False, id="still-there"),
    pytest.param(_obj([]), [delta("DELETED", _obj([], name="q", rv=2), 2)], False, id="another-deleted"),
])
def test_until_deleted(current, deltas, result):
    assert until_deleted(Getter(current), FakeWatch(*deltas), POD, "p", "default", FAR) is result


NOW = datetime(2024, 1, 1, 12, 0, 0, tzinfo=timezone.utc)


def _event(name, reason, last, first=None, count=1, kind="Pod", rv="1", ns="default"):
    return {"metadata": {"name": name, "namespace": ns, "resourceVersion": rv}, "type": "Normal",
            "reason": reason, "message": f" {reason} happened ", "count": count,
            "firstTimestamp": first or last, "lastTimestamp": last,
            "involvedObject": {"kind": kind, "name": "web"}}


def test_event_rows_oldest_first_as_kubectl_events():
    later = _event("e1", "Started", "2024-01-01T11:59:00Z", rv="5")
    earlier = _event("e2", "Scheduled", "2024-01-01T11:50:00Z", rv="9", kind="Deployment")
    rows = event_rows([later, earlier], all_ns=False, now=NOW)
    assert rows == [["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"],
                    ["10m", "Normal", "Scheduled", "Deployment/web", "Scheduled happened"],
                    ["60s", "Normal", "Started", "Pod/web", "Started happened"]]
    assert event_rows([later], all_ns=True, now=NOW)[1][0] == "default"


def test_last_seen_counts_a_repeated_event():
    event = _event("e", "BackOff", "2024-01-01T11:59:00Z", first="2024-01-01T11:30:00Z", count=3)
    assert last_seen(event, NOW) == "60s (x3 over 30m)"


@pytest.mark.parametrize("namespaced, group, includes, excludes", [
    pytest.param(None, None, {"pods", "deployments", "namespaces", "roles"}, set(), id="all"),
    pytest.param(False, None, {"namespaces", "nodes", "clusterroles"}, {"pods", "roles"}, id="cluster-scoped"),
    pytest.param(None, "apps", {"deployments", "replicasets"}, {"pods"}, id="one-group"),
    pytest.param(True, "", {"pods", "events"}, {"namespaces", "deployments"}, id="core-namespaced"),
])
def test_resource_rows(namespaced, group, includes, excludes):
    infos = resource_rows(namespaced, group)
    names = {info.plural for info in infos}
    assert includes <= names and not excludes & names
    assert [(i.group, i.plural) for i in infos] == sorted((i.group, i.plural) for i in infos)  # core first
