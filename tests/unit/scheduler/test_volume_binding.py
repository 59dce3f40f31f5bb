"""VolumeBinding's Filter and PreBind over a NodeTable: a bound volume's node affinity, a missing, deleting or
unbound Immediate claim refusing every node with Kubernetes' reason, an unbound WaitForFirstConsumer claim that
fits where a free volume is (or anywhere its class provisions), and the selected-node writes of PreBind."""
from __future__ import annotations

import numpy as np
import pytest

from actors.scheduler.plugins.volumebinding import (CONFLICT, NO_VOLUME, UNBOUND_IMMEDIATE, StorageView,
                                                    VolumeBinding, selections)
from api import storage
from tests.unit.scheduler.kit import ctx, node, pod, table
from tests.unit.test_pv_binding import pv, pvc

WAIT = {"metadata": {"name": "wait"}, "provisioner": "kubus.io/local-path",
        "volumeBindingMode": storage.WAIT_FOR_FIRST_CONSUMER}
STATIC = {"metadata": {"name": "static"}, "provisioner": "kubernetes.io/no-provisioner",
          "volumeBindingMode": storage.WAIT_FOR_FIRST_CONSUMER}


def view(*objects: dict) -> StorageView:
    v = StorageView()
    for obj in objects:
        kind = obj.get("kind") or "StorageClass"
        v.apply(kind, {**obj, "metadata": {**obj["metadata"], "namespace": obj["metadata"].get("namespace", "")}},
                False)
    return v


def with_claims(*names: str) -> dict:
    return pod("p", namespace="ns", volumes=[{"name": f"v{i}", "persistentVolumeClaim": {"claimName": n}}
                                             for i, n in enumerate(names)])


def run(v: StorageView, p: dict) -> list[tuple[int, list[str]]]:
    t = table(node("node-1"), node("node-2"))
    c = ctx(t, p, storage=v)
    plugin = VolumeBinding()
    if not plugin.pre_filter(c):
        return []
    verdict = plugin.filter(c, np.arange(len(t)))
    return [(int(code), verdict.reasons(i) if code else []) for i, code in enumerate(verdict.codes)]


@pytest.mark.parametrize("objects, claims, expected", [
    ((), (), []),  # Skip: no claims
    ((), ("nothing",), [(2, ['persistentvolumeclaim "nothing" not found'])] * 2),
    ((pvc(cls="now"),), ("data",), [(2, [UNBOUND_IMMEDIATE])] * 2),
    ((pvc(volume="n2"), pv("n2", node="node-2")), ("data",), [(2, [CONFLICT]), (0, [])]),
    ((pvc(volume="anywhere"), pv("anywhere")), ("data",), [(0, []), (0, [])]),
    ((pvc(cls="wait"), WAIT), ("data",), [(0, []), (0, [])]),  # the class provisions on any node
    ((pvc(cls="static"), STATIC, pv("free", cls="static", node="node-1")), ("data",), [(0, []), (2, [NO_VOLUME])]),
], ids=["no-claims", "missing", "unbound-immediate", "affinity", "no-affinity", "wffc-provisions", "wffc-static"])
def test_filter(objects, claims, expected):
    assert run(view(*objects), with_claims(*claims)) == expected


def test_a_deleting_claim_refuses_every_node():
    going = pvc()
    going["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    assert run(view(going), with_claims("data")) == [(2, ['persistentvolumeclaim "data" is being deleted'])] * 2


def test_prebind_selects_the_node_on_waiting_claims_only():
    chosen = pvc("chosen", cls="wait", notes={storage.SELECTED_NODE: "node-1"})
    v = view(pvc("waits", cls="wait"), chosen, pvc("bound", volume="x"), pv("x"), WAIT)
    writes = selections(with_claims("waits", "chosen", "bound"), v, "node-2")
    assert [(w["verb"], w["name"], w["object"]["metadata"]["annotations"]) for w in writes] == [
        ("patch", "waits", {storage.SELECTED_NODE: "node-2"})]
