"""Server-side apply through real kubectl 1.33: managedFields as Kubernetes records them, a conflict
with another manager printed as kubectl prints it, `--force-conflicts`, and a field the manager drops
from its manifest removed."""
from __future__ import annotations

import json
import os

import pytest

from tests.conftest import control_plane
from tests.e2e.conftest import running_gateway
from tests.e2e.test_kubectl import binary, kubectl_at, ok
from testkit.people import token_of

pytestmark = pytest.mark.skipif(not os.path.exists(binary("1.33")), reason="no kubectl.1.33")


def deployment(replicas: int | None, labels: dict) -> str:
    spec = {"selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}},
                         "spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}}}
    if replicas is not None:
        spec["replicas"] = replicas
    return json.dumps({"apiVersion": "apps/v1", "kind": "Deployment",
                       "metadata": {"name": "web", "namespace": "default", "labels": labels}, "spec": spec})


@pytest.fixture
def kubectl(procs, settings, tmp_path):
    client = control_plane(procs, settings)
    with running_gateway(procs, settings, tmp_path) as (url, ca):
        yield kubectl_at("1.33", tmp_path, url, ca, token_of(settings, "admin")), tmp_path
    client.close()


def _write(tmp_path, text: str):
    path = tmp_path / "web.json"
    path.write_text(text)
    return str(path)


def managers(run) -> dict:
    obj = json.loads(ok(run("get", "deployment", "web", "-o", "json", "--show-managed-fields")))
    return {(m["manager"], m["operation"]): m for m in obj["metadata"]["managedFields"]}


def test_server_side_apply_owns_conflicts_forces_and_removes(kubectl):
    run, tmp_path = kubectl
    ok(run("apply", "-f", _write(tmp_path, deployment(2, {"app": "web"}))))
    entry = managers(run)[("kubectl-client-side-apply", "Update")]
    assert entry["apiVersion"] == "apps/v1" and entry["fieldsType"] == "FieldsV1" and entry["time"]
    assert "f:replicas" in entry["fieldsV1"]["f:spec"]
    assert 'k:{"name":"nginx"}' in entry["fieldsV1"]["f:spec"]["f:template"]["f:spec"]["f:containers"]

    manifest = _write(tmp_path, deployment(3, {"app": "web", "tier": "front"}))
    refused = run("apply", "--server-side", "-f", manifest)
    assert refused.returncode != 0
    assert 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps/v1: .spec.replicas' \
        in refused.stderr
    assert ok(run("get", "deployment", "web", "-o", "jsonpath={.spec.replicas}")) == "2"

    assert "serverside-applied" in ok(run("apply", "--server-side", "--force-conflicts", "-f", manifest))
    owners = managers(run)
    applied = owners[("kubectl", "Apply")]["fieldsV1"]
    assert "f:replicas" in applied["f:spec"] and "f:tier" in applied["f:metadata"]["f:labels"]
    # kubectl moved the client-side manager's fields to its own (a JSON patch of managedFields, kept as sent)
    assert ("kubectl-client-side-apply", "Update") not in owners
    assert ok(run("get", "deployment", "web", "-o", "jsonpath={.spec.replicas}")) == "3"

    ok(run("apply", "--server-side", "-f", _write(tmp_path, deployment(3, {"app": "web"}))))
    labels = json.loads(ok(run("get", "deployment", "web", "-o", "jsonpath={.metadata.labels}")))
    assert labels == {"app": "web"}  # the label kubectl applied and dropped is gone
    plain = json.loads(ok(run("get", "deployment", "web", "-o", "json")))
    assert "managedFields" not in plain["metadata"]  # kubectl hides them unless asked


def test_server_side_apply_creates_when_absent(kubectl):
    run, tmp_path = kubectl
    assert "serverside-applied" in ok(run("apply", "--server-side", "-f", _write(tmp_path, deployment(1, {"a": "b"}))))
    assert list(managers(run)) == [("kubectl", "Apply")]
