"""Custom kinds through real kubectl 1.33 beyond create and get: `explain` from their OpenAPI v3, discovery,
`scale` through the scale subresource, `get -w`, several versions, field validation."""
from __future__ import annotations

import json
import os

import pytest

from tests.crds import widget, widget_crd
from tests.e2e.test_kubectl import binary, ok
from tests.e2e.test_kubectl_crds import kube  # noqa: F401  (the fixture)
from testkit.waiting import wait_until

pytestmark = pytest.mark.skipif(not os.path.exists(binary("1.33")), reason="no kubectl.1.33")


def established(kubectl, crd: dict) -> None:
    ok(kubectl("apply", "-f", "-", stdin=json.dumps(crd)))
    ok(kubectl("wait", "--for=condition=Established", f"crd/{crd['metadata']['name']}", "--timeout=30s"))
    wait_until(lambda: kubectl("get", crd["spec"]["names"]["plural"]).returncode == 0, 30, what="served")


def test_kubectl_explain_reads_the_custom_schema(kube):
    _, kubectl = kube
    established(kubectl, widget_crd())
    out = ok(kubectl("explain", "widget.spec"))
    assert "GROUP:      example.com" in out and "KIND:       Widget" in out and "VERSION:    v1" in out
    assert "size\t<string> -required-" in out and "replicas\t<integer>" in out
    assert "enum: small, large" in out
    assert "ObjectMeta" in ok(kubectl("explain", "widgets.metadata"))
