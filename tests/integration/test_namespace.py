"""Deleting a namespace: it turns Terminating, refuses new content, is emptied by the namespace
controller and then disappears; the immortal namespaces refuse deletion."""
from __future__ import annotations

import pytest

from api.status import StatusError
from testkit.waiting import wait_until
from tests.integration.test_deployment import deployment
from tests.integration.test_gc import _gone


def test_deleting_a_namespace_empties_it_then_removes_it(apps, procs):
    procs.start("actors.controllers", "gc", label="gc")
    procs.start("actors.controllers", "namespace", label="namespace-controller")
    apps.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}})
    apps.create({**deployment("web", 2), "metadata": {"name": "web", "namespace": "shop"}})
    wait_until(lambda: (apps.get("Deployment", "web", "shop").get("status") or {}).get("availableReplicas") == 2, 60,
               what="2 pods available in shop")
    apps.delete("Namespace", "shop")
    terminating = apps.get("Namespace", "shop")
    assert terminating["status"]["phase"] == "Terminating" and terminating["metadata"]["deletionTimestamp"]
    with pytest.raises(StatusError) as refused:
        apps.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "late", "namespace": "shop"},
                     "spec": {"containers": [{"name": "c", "image": "busybox"}]}})
    assert refused.value.reason == "Forbidden"
    assert "unable to create new content in namespace shop because it is being terminated" in refused.value.message
    wait_until(lambda: _gone(apps, "Namespace", "shop"), 90, what="the namespace to go")
    for kind in ("Deployment", "ReplicaSet", "Pod"):
        assert apps.list(kind, "shop").items == []


def test_default_namespace_may_not_be_deleted(cluster):
    with pytest.raises(StatusError) as refused:
        cluster.delete("Namespace", "default")
    assert refused.value.reason == "Forbidden"
    assert refused.value.message == 'namespaces "default" is forbidden: this namespace may not be deleted'
