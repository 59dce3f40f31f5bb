"""kubectl 1.33's `--validate` through the gateway: `strict` (kubectl's default, `fieldValidation=Strict`)
refuses a field Kubernetes does not know, with kube-apiserver's message, and accepts the ones Kubernetes
knows that kubus does not model; `warn` warns and writes; `false` (Ignore) writes silently. A JSON body
that gives a field twice is refused under Strict."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import requests
import yaml

from testkit.people import token_of
from tests.e2e.conftest import kubectl_for

KUBECTL = "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"
pytestmark = [pytest.mark.skipif(not Path(KUBECTL).exists(), reason="no kubectl 1.33"),
              pytest.mark.shared_plane]  # one control plane and gateway for the module, a namespace per test
TYPO = 'unknown field "spec.containers[0].imagePullPolice"'


def pod(name: str, **container) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"containers": [{"name": "c", "image": "busybox", **container}]}}


@pytest.fixture
def front(gateway, settings, tmp_path, namespace):
    """(kubectl 1.33's apply as admin in the test's namespace, a raw POST of a pod there)."""
    url, ca = gateway
    token = token_of(settings, "admin")
    argv = kubectl_for(tmp_path, url, ca, token, namespace).argv

    def apply(manifest: dict, *flags: str) -> subprocess.CompletedProcess:
        path = tmp_path / f"{manifest['metadata']['name']}.yaml"
        path.write_text(yaml.safe_dump(manifest))
        return subprocess.run([KUBECTL, *argv("apply", "-f", str(path), *flags)[1:]], capture_output=True,
                              text=True, timeout=90)

    def post(raw: bytes, query: str) -> requests.Response:
        return requests.post(f"{url}/api/v1/namespaces/{namespace}/pods?{query}", data=raw, verify=str(ca),
                             headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
                             timeout=30)
    return apply, post


@pytest.mark.parametrize("flags, created, said", [
    ((), False, f'Error from server (BadRequest): error when creating "{{path}}": Pod in version "v1" cannot be '
                f'handled as a Pod: strict decoding error: {TYPO}'),
    (("--validate=warn",), True, f"Warning: {TYPO}"),
    (("--validate=false",), True, None),
])
def test_an_unknown_field_under_each_validation(front, cluster, tmp_path, flags, created, said):
    apply, _ = front
    done = apply(pod("typo", imagePullPolice="Always"), *flags)
    assert (done.returncode == 0) == created, done.stderr
    if said is not None:
        assert said.replace("{path}", str(tmp_path / "typo.yaml")) in done.stderr
    else:
        assert "unknown field" not in done.stderr
    assert bool(cluster.list("Pod", cluster.namespace).items) == created


def test_fields_kubernetes_knows_pass_strict(front, cluster):
    apply, _ = front
    manifest = pod("modern", resizePolicy=[{"resourceName": "cpu", "restartPolicy": "NotRequired"}])
    manifest["spec"].update({"os": {"name": "linux"}, "hostUsers": True})
    done = apply(manifest)
    assert done.returncode == 0 and "Warning" not in done.stderr, done.stderr
    assert cluster.get("Pod", "modern")["spec"]["os"] == {"name": "linux"}  # kept as sent


def test_a_duplicate_field_is_refused_under_strict(front, cluster):
    _, post = front
    raw = b'{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "name": "b"}, ' \
          b'"spec": {"containers": [{"name": "c", "image": "busybox", "image": "nginx"}]}}'
    refused = post(raw, "fieldValidation=Strict")
    assert refused.status_code == 400
    assert refused.json()["message"] == 'Pod in version "v1" cannot be handled as a Pod: strict decoding error: ' \
                                        'duplicate field "metadata.name", duplicate field "spec.containers[0].image"'
    warned = post(raw, "fieldValidation=Warn")
    assert warned.status_code == 201 and warned.json()["metadata"]["name"] == "b"  # the last one, as Kubernetes
    assert 'duplicate field \\"metadata.name\\"' in warned.headers["Warning"]
    assert cluster.get("Pod", "b")["spec"]["containers"][0]["image"] == "nginx"
