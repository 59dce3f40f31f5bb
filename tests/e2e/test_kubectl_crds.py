"""CustomResourceDefinitions through real kubectl 1.33 and the gateway: apply a CRD, wait for it to be
Established, apply a Widget, `get widgets` / `get wd` with the CRD's printer columns, a bad Widget refused
with Kubernetes' message, strategic merge refused; and the time from CRD create to the resource served
by the gateway (printed: the bench figure)."""
from __future__ import annotations

import json
import os
import time

import pytest

from tests.conftest import control_plane
from tests.crds import widget, widget_crd
from tests.e2e.conftest import running_gateway
from tests.e2e.test_kubectl import binary, kubectl_at, ok
from testkit.people import token_of
from testkit.waiting import wait_until

pytestmark = pytest.mark.skipif(not os.path.exists(binary("1.33")), reason="no kubectl.1.33")


@pytest.fixture
def kube(procs, settings, tmp_path):
    client = control_plane(procs, settings)
    procs.start("actors.controllers", "crd", label="crd-controller")
    with running_gateway(procs, settings, tmp_path) as (url, ca):
        yield client, kubectl_at("1.33", tmp_path, url, ca, token_of(settings, "admin"))
    client.close()


def test_kubectl_crd_and_widgets(kube):
    client, kubectl = kube
    started = time.monotonic()
    assert ok(kubectl("apply", "-f", "-", stdin=json.dumps(widget_crd()))).strip() == \
        "customresourcedefinition.apiextensions.k8s.io/widgets.example.com created"
    wait_until(lambda: kubectl("get", "widgets").returncode == 0, 30, what="widgets served by the gateway")
    print(f"\nCRD created -> resource served by the gateway: {time.monotonic() - started:.3f} s")
    ok(kubectl("wait", "--for=condition=Established", "crd/widgets.example.com", "--timeout=30s"))
    assert ok(kubectl("get", "crd")).split()[:4] == ["NAME", "CREATED", "AT", "widgets.example.com"]

    assert ok(kubectl("apply", "-f", "-", stdin=json.dumps(widget("w1", replicas=3)))).strip() == \
        "widget.example.com/w1 created"
    lines = ok(kubectl("get", "widgets")).splitlines()
    assert lines[0].split() == ["NAME", "SIZE", "REPLICAS", "AGE"]
    assert lines[1].split()[:3] == ["w1", "small", "3"]
    assert ok(kubectl("get", "wd", "w1", "-o", "jsonpath={.spec.replicas}")) == "3"

    bad = kubectl("apply", "-f", "-", stdin=json.dumps(widget("w2", replicas="many")))
    assert bad.returncode != 0
    assert bad.stderr.strip() == 'The Widget "w2" is invalid: spec.replicas: Invalid value: "string": ' \
                                 'spec.replicas in body must be of type integer: "string"'  # kubectl's wording

    strategic = kubectl("patch", "widget", "w1", "--type=strategic", "-p", '{"spec":{"replicas":4}}')
    assert strategic.returncode != 0 and "the body of the request was in an unknown format" in strategic.stderr
    ok(kubectl("patch", "widget", "w1", "--type=merge", "-p", '{"spec":{"replicas":4}}'))
    assert client.get("Widget", "w1", "default")["spec"]["replicas"] == 4

    ok(kubectl("delete", "crd", "widgets.example.com", "--timeout=30s"))
    wait_until(lambda: kubectl("get", "widgets").returncode != 0, 30, what="widgets no longer served")
