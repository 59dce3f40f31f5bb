"""The three patch types through a real store and apiserver: strategic merge, JSON patch and its
failures, dryRun, and `kubus apply`'s three-way strategic patch."""
from __future__ import annotations

import subprocess

import pytest
import yaml

from api.status import StatusError
from testkit import cli

ENV = [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]


def deployment(containers: list, name: str = "web") -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "labels": {"app": name}},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": containers}}}}


def _env(obj: dict, container: int = 0) -> list:
    return obj["spec"]["template"]["spec"]["containers"][container]["env"]


@pytest.mark.shared_plane
def test_strategic_patch_merges_env_by_name(cluster):
    cluster.create(deployment([{"name": "web", "image": "nginx:1.25", "env": ENV}]))
    patch = {"spec": {"template": {"spec": {"containers": [
        {"name": "web", "env": [{"name": "A", "$patch": "delete"}, {"name": "C", "value": "3"},
                                {"name": "B", "value": "two"}]}]}}}}
    patched = cluster.patch("Deployment", "web", patch, patch_type="strategic")
    assert _env(patched) == [{"name": "C", "value": "3"}, {"name": "B", "value": "two"}]
    assert cluster.get("Deployment", "web")["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:1.25"


@pytest.mark.shared_plane
def test_failed_json_patch_test_leaves_the_object_as_it_was(cluster):
    created = cluster.create(deployment([{"name": "web", "image": "nginx:1.25", "env": ENV}]))
    ops = [{"op": "replace", "path": "/spec/replicas", "value": 5},
           {"op": "test", "path": "/metadata/labels/app", "value": "db"}]
    with pytest.raises(StatusError) as err:
        cluster.patch("Deployment", "web", ops, patch_type="json")
    assert (err.value.code, err.value.reason) == (422, "Invalid")
    assert err.value.message == "the server rejected our request due to an error in our request"
    assert [c.message for c in err.value.causes] == ["testing value /metadata/labels/app failed: test failed"]
    assert cluster.get("Deployment", "web") == created
    ops[1]["value"] = "web"
    assert cluster.patch("Deployment", "web", ops, patch_type="json")["spec"]["replicas"] == 5


@pytest.mark.shared_plane
def test_bad_strategic_patch_is_a_bad_request(cluster):
    cluster.create(deployment([{"name": "web", "image": "nginx:1.25"}]))
    with pytest.raises(StatusError) as err:
        cluster.patch("Deployment", "web", {"spec": {"template": {"spec": {"containers": [{"image": "x"}]}}}},
                      patch_type="strategic")
    assert (err.value.code, err.value.message) == (400, "map: map[image:x] does not contain declared merge key: name")


@pytest.mark.shared_plane
@pytest.mark.parametrize("patch_type, patch", [
    pytest.param("strategic", {"spec": {"replicas": 4}}, id="strategic"),
    pytest.param("json", [{"op": "replace", "path": "/spec/replicas", "value": 4}], id="json"),
    pytest.param("merge", {"spec": {"replicas": 4}}, id="merge"),
])
def test_dry_run_patch_answers_without_writing(cluster, patch_type, patch):
    created = cluster.create(deployment([{"name": "web", "image": "nginx:1.25"}]))
    reply = cluster.request("patch", "Deployment", namespace=cluster.namespace, name="web", obj=patch,
                            options={"patchType": patch_type, "dryRun": ["All"]})
    assert reply["object"]["spec"]["replicas"] == 4
    assert cluster.get("Deployment", "web") == created


def kubus_apply(procs, tmp_path, manifest: dict) -> subprocess.CompletedProcess:
    path = tmp_path / "web.yaml"
    path.write_text(yaml.safe_dump(manifest))
    return cli.kubus("apply", "-f", str(path), env=procs.env)


def test_apply_removes_exactly_what_the_manifest_dropped(cluster, procs, tmp_path):
    web = {"name": "web", "image": "nginx:1.25", "env": ENV}
    side = {"name": "side", "image": "busybox:1.36"}
    first = kubus_apply(procs, tmp_path, deployment([web, side]))
    assert first.stdout == "deployment/web created\n", first.stderr
    others = {"metadata": {"annotations": {"controller/seen": "yes"}, "labels": {"team": "a"}},
              "spec": {"template": {"spec": {"containers": [{"name": "web", "env": [{"name": "INJECTED", "value": "x"}]}]}}}}
    cluster.patch("Deployment", "web", others, patch_type="strategic")

    second = kubus_apply(procs, tmp_path, deployment([{**web, "env": ENV[:1]}]))
    assert second.stdout == "deployment/web configured\n", second.stderr
    live = cluster.get("Deployment", "web")
    assert [c["name"] for c in live["spec"]["template"]["spec"]["containers"]] == ["web"]
    assert _env(live) == [{"name": "INJECTED", "value": "x"}, {"name": "A", "value": "1"}]  # the live order
    assert live["metadata"]["annotations"]["controller/seen"] == "yes"
    assert live["metadata"]["labels"] == {"app": "web", "team": "a"}
