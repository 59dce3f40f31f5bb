"""The three-way strategic merge patch `kubus apply` sends (api/patch/diff): the patch kubectl
1.32 was measured sending, what the patch does to a live object (applied by the oracle,
`kubectl patch --local`, and by api/patch/strategic), and random manifests taken from one to another."""
from __future__ import annotations

import copy
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from api.patch.diff import three_way, two_way
from api.patch.strategic import apply
from cli.apply import LAST_APPLIED, with_last_applied
from tests.kubectl_oracle import kubectl_patch, needs_kubectl
from tests.unit.test_strategic_merge import DEPLOYMENT_OBJECTS, POD_OBJECTS


def _deployment(labels: dict, strategy: dict, containers: list) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": labels},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, "strategy": strategy,
                     "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": containers}}}}


WEB = {"name": "web", "image": "nginx", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]}
SIDE = {"name": "side", "image": "busybox"}
BEFORE = _deployment({"a": "1", "b": "2"}, {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}, [WEB, SIDE])
AFTER = _deployment({"a": "1"}, {"type": "Recreate"}, [{**WEB, "env": WEB["env"][:1]}])


def _live(manifest: dict, injected: bool = True) -> dict:
    """The object as stored after an apply of `manifest`, with what the server and controllers added."""
    live = with_last_applied(manifest)
    live["metadata"].update(uid="u1", resourceVersion="7", generation=1)
    live["metadata"]["annotations"]["deployment.kubernetes.io/revision"] = "1"
    live["spec"]["replicas"] = 1
    containers = live["spec"]["template"]["spec"]["containers"]
    if injected:
        containers[0]["env"].append({"name": "INJECTED", "value": "by-a-webhook"})
    containers[0]["imagePullPolicy"] = "Always"
    live["status"] = {"conditions": [{"type": "Available", "status": "True"}]}
    return live


def test_the_patch_is_the_one_kubectl_sends():
    """kubectl 1.32's patch when a manifest drops a label, an env var and a container and switches
    the strategy to Recreate (measured; k8s-rest-api.md §3.9)."""
    current = _live(BEFORE)
    modified = with_last_applied(AFTER)
    patch = three_way("Deployment", BEFORE, modified, current)
    assert patch["metadata"].pop("annotations") == {LAST_APPLIED: modified["metadata"]["annotations"][LAST_APPLIED]}
    assert patch == {
        "metadata": {"labels": {"b": None}},
        "spec": {"strategy": {"$retainKeys": ["type"], "rollingUpdate": None, "type": "Recreate"},
                 "template": {"spec": {
                     "$setElementOrder/containers": [{"name": "web"}],
                     "containers": [{"$setElementOrder/env": [{"name": "A"}], "env": [{"$patch": "delete", "name": "B"}],
                                     "name": "web"},
                                    {"$patch": "delete", "name": "side"}]}}}}


@needs_kubectl
def test_an_apply_removes_exactly_what_the_manifest_dropped(tmp_path):
    current = _live(BEFORE)
    patch = three_way("Deployment", BEFORE, with_last_applied(AFTER), current)
    result = kubectl_patch(tmp_path, current, patch, "strategic")
    assert apply("Deployment", current, patch) == result
    assert result["metadata"]["labels"] == {"a": "1"}
    assert result["metadata"]["annotations"]["deployment.kubernetes.io/revision"] == "1"
    assert result["spec"]["strategy"] == {"type": "Recreate"}
    assert result["spec"]["replicas"] == 1 and result["status"] == current["status"]
    assert result["spec"]["template"]["spec"]["containers"] == [
        {"name": "web", "image": "nginx", "imagePullPolicy": "Always",
         "env": [{"name": "A", "value": "1"}, {"name": "INJECTED", "value": "by-a-webhook"}]}]


def test_the_same_manifest_again_is_no_patch():
    current = _live(BEFORE, injected=False)
    current["metadata"]["labels"]["added-by"] = "controller"
    assert three_way("Deployment", BEFORE, with_last_applied(BEFORE), current) == {}


def test_an_item_others_added_to_a_merged_list_only_reorders():
    """As in Go, a live list longer than the manifest's earns a `$setElementOrder` (so kubectl says
    "configured" again after a webhook injected an env var); it changes nothing."""
    current = _live(BEFORE)
    patch = three_way("Deployment", BEFORE, with_last_applied(BEFORE), current)
    assert patch["spec"]["template"]["spec"]["containers"] == [
        {"name": "web", "$setElementOrder/env": [{"name": "A"}, {"name": "B"}]}]
    assert apply("Deployment", current, patch) == current


@pytest.mark.parametrize("before, after, want", [
    pytest.param({"finalizers": ["a", "b"]}, {"finalizers": ["c", "b"]},
                 {"$deleteFromPrimitiveList/finalizers": ["a"], "$setElementOrder/finalizers": ["c", "b"],
                  "finalizers": ["c"]}, id="primitive-list"),
    pytest.param({"finalizers": ["a", "b"]}, {}, {"finalizers": None}, id="dropped-list"),
    pytest.param({"labels": {"a": "1"}}, {"labels": {"a": "2"}}, {"labels": {"a": "2"}}, id="changed-value"),
])
def test_two_way_metadata(before, after, want):
    meta = {"name": "n"}
    patch = two_way("Pod", {"metadata": {**meta, **before}}, {"metadata": {**meta, **after}})
    assert patch == {"metadata": want}


# ---- random manifests: from one to the other, through the oracle ---------------------------------
def _through_kubectl(original: dict, modified: dict) -> None:
    """With nothing but the last manifest live, the three-way patch makes the object the new manifest
    — unless the manifests' finalizers differ in order only: Go's diff compares the live list sorted
    with the manifest's, finds nothing to do and keeps the live order, and so does kubectl apply."""
    assume(not _reordered_only(original, modified, "finalizers"))
    patch = three_way(modified["kind"], original, modified, copy.deepcopy(original))
    assert apply(modified["kind"], original, patch) == modified, json.dumps(patch)
    with tempfile.TemporaryDirectory() as tmp:
        assert kubectl_patch(Path(tmp), original, patch, "strategic") == modified, json.dumps(patch)


def _reordered_only(original: dict, modified: dict, field: str) -> bool:
    before, after = (obj["metadata"].get(field) or [] for obj in (original, modified))
    return before != after and sorted(before) == sorted(after)


MANIFEST_PAIRS = st.tuples(POD_OBJECTS, POD_OBJECTS) | st.tuples(DEPLOYMENT_OBJECTS, DEPLOYMENT_OBJECTS)


@needs_kubectl
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MANIFEST_PAIRS)
def test_random_manifests_apply_to_each_other(pair):
    _through_kubectl(*pair)


@pytest.mark.slow
@needs_kubectl
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MANIFEST_PAIRS)
def test_many_random_manifests_apply_to_each_other(pair):
    _through_kubectl(*pair)
