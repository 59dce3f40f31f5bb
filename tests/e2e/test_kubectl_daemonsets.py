"""DaemonSets from the command line on two hollow nodes: kubectl 1.33 `apply`, `get ds` (its columns),
`rollout status`, `set image`, `rollout history` (the ControllerRevisions, listed by the DaemonSet's
selector), `rollout undo` back to the first template, `get controllerrevisions` and `describe ds`
and a second `apply` of a changed manifest through the gateway; `kubus describe ds` and `kubus rollout
history|undo|status ds/x`."""
from __future__ import annotations

import copy
import os

import pytest
import yaml

from tests.conftest import control_plane
from tests.e2e.conftest import running_gateway
from tests.e2e.test_kubectl import binary, kubectl_at, ok
from tests.integration.test_deployment import kubus
from testkit.people import token_of
from testkit.waiting import wait_until

pytestmark = pytest.mark.skipif(not os.path.exists(binary("1.33")), reason="no kubectl.1.33")

MANIFEST = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent"},
            "spec": {"selector": {"matchLabels": {"app": "agent"}},
                     "template": {"metadata": {"labels": {"app": "agent"}},
                                  "spec": {"nodeSelector": {"role": "edge"}, "terminationGracePeriodSeconds": 0,
                                           "containers": [{"name": "c", "image": "agent:1"}]}}}}


@pytest.fixture
def kube(procs, settings, tmp_path):
    client = control_plane(procs, settings)
    procs.start("actors.scheduler")
    procs.start("actors.kubelet", "--hollow", "2", "--labels", "role=edge", "--capacity", "cpu=8,memory=16Gi,pods=110")
    procs.start("actors.controllers", "daemonset", label="ds-controller")
    wait_until(lambda: len(client.list("Node").items) == 2, 30, what="two nodes")
    with running_gateway(procs, settings, tmp_path) as (url, ca):
        yield client, kubectl_at("1.33", tmp_path, url, ca, token_of(settings, "admin"))
    client.close()


def images(client) -> set[str]:
    return {p["spec"]["containers"][0]["image"] for p in client.list("Pod", "default").items
            if not p["metadata"].get("deletionTimestamp")}


def test_kubectl_apply_get_rollout_status_history_undo(kube, procs, tmp_path):
    client, kubectl = kube
    (tmp_path / "ds.yaml").write_text(yaml.safe_dump(MANIFEST))
    assert ok(kubectl("apply", "-f", str(tmp_path / "ds.yaml"))).strip() == "daemonset.apps/agent created"
    assert ok(kubectl("rollout", "status", "ds/agent", "--timeout=60s")).strip().splitlines()[-1] == \
        'daemon set "agent" successfully rolled out'
    header, row = ok(kubectl("get", "ds")).splitlines()
    assert header.split() == ["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE", "SELECTOR",
                              "AGE"]
    assert row.split()[:7] == ["agent", "2", "2", "2", "2", "2", "role=edge"]
    assert "daemonset.apps/agent" in ok(kubectl("get", "all"))  # daemonsets are in the `all` category

    assert ok(kubectl("set", "image", "ds/agent", "c=agent:2")).strip() == "daemonset.apps/agent image updated"
    ok(kubectl("rollout", "status", "ds/agent", "--timeout=60s"))
    wait_until(lambda: images(client) == {"agent:2"}, 30, what="every pod on agent:2")
    history = ok(kubectl("rollout", "history", "ds/agent")).splitlines()
    assert history[0] == "daemonset.apps/agent " and history[1].split() == ["REVISION", "CHANGE-CAUSE"]
    assert [line.split()[0] for line in history[2:] if line.strip()] == ["1", "2"]
    shown = ok(kubectl("rollout", "history", "ds/agent", "--revision=1"))
    assert "agent:1" in shown

    assert ok(kubectl("rollout", "undo", "ds/agent")).strip() == "daemonset.apps/agent rolled back"
    ok(kubectl("rollout", "status", "ds/agent", "--timeout=60s"))
    wait_until(lambda: images(client) == {"agent:1"}, 30, what="every pod back on agent:1")
    revisions = sorted(r["revision"] for r in client.list("ControllerRevision", "default").items)
    assert revisions == [2, 3]  # the first template's revision renumbered as the newest
    revs = ok(kubectl("get", "controllerrevisions")).splitlines()
    assert revs[0].split() == ["NAME", "CONTROLLER", "REVISION", "AGE"]
    assert sorted(line.split()[1:3] for line in revs[1:]) == [["daemonset.apps/agent", "2"],
                                                              ["daemonset.apps/agent", "3"]]
    assert "Desired Number of Nodes Scheduled: 2" in ok(kubectl("describe", "ds", "agent"))
    described = kubus(procs, "describe", "ds", "agent")
    assert described.returncode == 0, described.stderr
    assert "Desired Number of Nodes Scheduled: 2" in described.stdout

    changed = copy.deepcopy(MANIFEST)
    changed["spec"]["template"]["spec"]["containers"][0]["image"] = "agent:3"
    (tmp_path / "ds.yaml").write_text(yaml.safe_dump(changed))
    assert ok(kubectl("apply", "-f", str(tmp_path / "ds.yaml"))).strip() == "daemonset.apps/agent configured"
    ok(kubectl("rollout", "status", "ds/agent", "--timeout=60s"))
    wait_until(lambda: images(client) == {"agent:3"}, 30, what="every pod on agent:3 after a second apply")


def test_kubus_rollout_history_undo_status_of_a_daemonset(kube, procs):
    client, _ = kube
    client.create({**MANIFEST, "metadata": {"name": "agent", "namespace": "default"}})
    wait_until(lambda: len(client.list("ControllerRevision", "default").items) == 1, 30, what="the first revision")
    client.patch("DaemonSet", "agent", {"spec": {"template": {"spec": {"containers": [
        {"name": "c", "image": "agent:2"}]}}}}, "default")
    wait_until(lambda: len(client.list("ControllerRevision", "default").items) == 2, 30, what="the second revision")
    history = kubus(procs, "rollout", "history", "ds/agent")
    assert history.returncode == 0, history.stderr
    assert history.stdout.splitlines()[0] == "daemonset.apps/agent"
    assert [line.split() for line in history.stdout.splitlines()[1:]] == [["REVISION", "CHANGE-CAUSE"],
                                                                          ["1", "<none>"], ["2", "<none>"]]
    undone = kubus(procs, "rollout", "undo", "daemonset/agent")
    assert undone.returncode == 0, undone.stderr
    assert undone.stdout.strip() == "daemonset.apps/agent rolled back"
    status = kubus(procs, "rollout", "status", "ds/agent")
    assert status.returncode == 0, status.stderr
    assert status.stdout.strip().splitlines()[-1] == 'daemon set "agent" successfully rolled out'
    wait_until(lambda: images(client) == {"agent:1"}, 30, what="every pod back on agent:1")
    again = kubus(procs, "rollout", "undo", "ds/agent", "--to-revision", "3")
    assert again.stdout.strip() == "daemonset.apps/agent skipped rollback (current template already matches " \
                                   "revision 3)"
