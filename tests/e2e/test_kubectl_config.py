"""kubectl 1.33 creates ConfigMaps and Secrets through the gateway (typed clients: protobuf bodies
both ways), and gets and describes them with Kubernetes' columns; describe shows a Secret's sizes only."""
from __future__ import annotations

import base64
import json
import os

import pytest

from api import protobuf
from testkit.people import token_of
from tests.conftest import control_plane
from tests.e2e.conftest import running_gateway
from tests.e2e.test_kubectl import binary, kubectl_at, ok

pytestmark = pytest.mark.skipif(not os.path.exists(binary("1.33")), reason="no kubectl.1.33")
PASSWORD = "pa55-w0rd-e2e"


@pytest.fixture
def kubectl(procs, settings, tmp_path):
    """kubectl 1.33 as admin against a gateway in front of a store and an apiserver; a kubus client."""
    client = control_plane(procs, settings)
    with running_gateway(procs, settings, tmp_path) as (url, ca):
        yield kubectl_at("1.33", tmp_path, url, ca, token_of(settings, "admin")), client, ca
    client.close()


def test_create_get_and_describe(kubectl, tmp_path):
    run, client, ca = kubectl
    (tmp_path / "app.conf").write_text("mode=fast\n")
    (tmp_path / "vars.env").write_text("LEVEL=debug\n")
    created = run("-v=8", "create", "configmap", "app", "--from-literal=greeting=hello",
                  f"--from-file={tmp_path / 'app.conf'}")
    assert ok(created).strip() == "configmap/app created"
    assert created.stderr.count(f"Content-Type: {protobuf.MEDIA_TYPE}\n") == 2, created.stderr[-3000:]
    assert client.get("ConfigMap", "app", "default")["data"] == {"greeting": "hello", "app.conf": "mode=fast\n"}
    assert ok(run("create", "configmap", "env", f"--from-env-file={tmp_path / 'vars.env'}")).strip() == \
        "configmap/env created"
    assert client.get("ConfigMap", "env", "default")["data"] == {"LEVEL": "debug"}
    steps = [
        (("secret", "generic", "db", f"--from-literal=password={PASSWORD}"), "secret/db created"),
        (("secret", "tls", "web", f"--cert={ca.parent / 'server.crt'}", f"--key={ca.parent / 'server.key'}"),
         "secret/web created"),
        (("secret", "docker-registry", "reg", "--docker-server=127.0.0.1:5000", "--docker-username=u",
          "--docker-password=p"), "secret/reg created"),
    ]
    for args, printed in steps:
        assert ok(run("create", *args)).strip() == printed
    reg = client.get("Secret", "reg", "default")
    auths = json.loads(base64.b64decode(reg["data"][".dockerconfigjson"]))["auths"]
    assert (reg["type"], auths["127.0.0.1:5000"]["auth"]) == ("kubernetes.io/dockerconfigjson",
                                                            base64.b64encode(b"u:p").decode())
    cms = [line.split() for line in ok(run("get", "configmap", "app")).splitlines()]
    assert cms[0] == ["NAME", "DATA", "AGE"] and cms[1][:2] == ["app", "2"]
    secrets = {line.split()[0]: line.split()[:3] for line in ok(run("get", "secrets")).splitlines()}
    assert secrets["NAME"] == ["NAME", "TYPE", "DATA"]
    assert [secrets[n] for n in ("db", "web", "reg")] == [["db", "Opaque", "1"], ["web", "kubernetes.io/tls", "2"],
                                                         ["reg", "kubernetes.io/dockerconfigjson", "1"]]
    described = ok(run("describe", "secret", "db"))
    assert f"password:  {len(PASSWORD)} bytes" in described and PASSWORD not in described
    refused = run("create", "configmap", "app", "--from-literal=a=b")
    assert refused.returncode == 1 and 'configmaps "app" already exists' in refused.stderr
    bad = run("create", "secret", "generic", "x", "--from-literal=..bad=1")
    assert bad.returncode == 1 and "must not start with '..'" in bad.stderr
