"""The Deployment controller with ReplicaSet controller, scheduler and hollow kubelets."""
from __future__ import annotations

import queue
import subprocess

import pytest

from runtime.client import Client
from testkit.waiting import wait_until
from testkit import cli

LABELS = {"app": "web"}


def deployment(name: str, replicas: int, image: str = "nginx:1.25", strategy: dict | None = None) -> dict:
    spec = {"replicas": replicas, "selector": {"matchLabels": LABELS},
            "template": {"metadata": {"labels": LABELS}, "spec": {"containers": [{"name": "web", "image": image}]}}}
    if strategy:
        spec["strategy"] = strategy
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name}, "spec": spec}


def status(client: Client, name: str) -> dict:
    return client.get("Deployment", name).get("status") or {}


def kubus(procs, *args: str) -> subprocess.CompletedProcess:
    return cli.kubus(*args, env=procs.env, timeout=120)


@pytest.mark.shared_plane  # the module's plane (nodes, controllers), a namespace of its own
def test_twenty_replicas_become_available_and_scale(apps, procs):
    apps.create(deployment("web", 20))
    done = kubus(procs, "rollout", "status", "deployment/web", "-n", apps.namespace)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == 'deployment "web" successfully rolled out'
    assert status(apps, "web")["availableReplicas"] == 20
    conditions = {c["type"]: c["reason"] for c in status(apps, "web")["conditions"]}
    assert conditions == {"Available": "MinimumReplicasAvailable", "Progressing": "NewReplicaSetAvailable"}
    rs = [r for r in apps.list("ReplicaSet", apps.namespace).items]
    assert len(rs) == 1 and rs[0]["metadata"]["name"].startswith("web-")
    assert rs[0]["spec"]["selector"]["matchLabels"]["pod-template-hash"] == rs[0]["metadata"]["name"][4:]
    scaled = kubus(procs, "scale", "deployment/web", "--replicas", "25", "-n", apps.namespace)
    assert scaled.stdout.strip() == "deployments.apps/web scaled"
    wait_until(lambda: status(apps, "web").get("availableReplicas") == 25, 60, what="25 available")
    apps.patch("Deployment", "web", {"spec": {"replicas": 5}})
    wait_until(lambda: status(apps, "web").get("replicas") == 5, 60, what="5 replicas")


def _all_deltas(watch) -> list:
    """Everything the watch has delivered (the snapshot's ADDED first)."""
    out = []
    try:
        while True:
            out.append(watch.next(timeout=1))
    except queue.Empty:
        return out


def _is_ready(pod: dict) -> bool:
    return any(c["type"] == "Ready" and c["status"] == "True" for c in (pod.get("status") or {}).get("conditions") or [])


def _in_store_order(*watches) -> list:
    """The deltas of several watches merged in the store's order: each snapshot's ADDED first, then
    every change by its revision (one global counter, so revisions of different kinds interleave)."""
    return sorted((d for w in watches for d in _all_deltas(w)), key=lambda d: (not d.synthetic, d.rev))


@pytest.mark.shared_plane  # the module's plane (nodes, controllers), a namespace of its own
def test_rolling_update_stays_within_surge_and_unavailability(apps, procs):
    """What Kubernetes bounds by maxSurge is the sum of the sets' spec.replicas (NewRSNewReplicas),
    and a set never makes a pod beyond its spec.replicas. A pod of an old set that was scaled below
    it is one the set is deleting: Kubernetes scales the new set up without waiting for that pod to
    be marked terminating (its ReplicaSet controller may even hold the delete back on expectations),
    so the live pods alone can pass replicas + surge for a moment — a full run under load saw 11."""
    apps.create(deployment("web", 8))
    wait_until(lambda: status(apps, "web").get("availableReplicas") == 8, 60, what="8 available")
    pod_watch = apps.watch("Pod", apps.namespace).wait_synced()
    set_watch = apps.watch("ReplicaSet", apps.namespace).wait_synced()
    apps.patch("Deployment", "web", {"spec": {"template": {"spec": {"containers": [
        {"name": "web", "image": "nginx:1.26"}]}}}})
    done = kubus(procs, "rollout", "status", "deployment/web", "-n", apps.namespace)
    assert done.returncode == 0, done.stderr
    surge, unavailable = 2, 2  # 25% of 8: rounded up for surge, down for unavailability
    pods: dict[str, dict] = {}
    specs: dict[str, int] = {}  # ReplicaSet -> spec.replicas
    sums, beyond, readies = [], [], []
    for delta in _in_store_order(pod_watch, set_watch):
        meta = delta.object["metadata"]
        if delta.kind == "ReplicaSet":
            specs[meta["name"]] = delta.object["spec"]["replicas"]
        elif delta.type == "DELETED":
            pods.pop(meta["name"], None)
        else:
            pods[meta["name"]] = delta.object
        if delta.synthetic:
            continue  # still loading the starting state
        live = [p for p in pods.values() if not p["metadata"].get("deletionTimestamp")]
        sums.append(sum(specs.values()))
        readies.append(sum(1 for p in live if _is_ready(p)))
        if delta.kind == "Pod" and delta.type == "ADDED":
            owner = meta["ownerReferences"][0]["name"]
            mine = sum(1 for p in live if p["metadata"]["ownerReferences"][0]["name"] == owner)
            beyond.append((meta["name"], mine, specs.get(owner, 0)))
    assert sums and max(sums) <= 8 + surge, sums
    assert all(mine <= spec for _, mine, spec in beyond), beyond  # no pod made beyond its set's size
    assert min(readies) >= 8 - unavailable, readies
    images = {p["spec"]["containers"][0]["image"] for p in apps.list("Pod", apps.namespace).items
              if not p["metadata"].get("deletionTimestamp")}
    assert images == {"nginx:1.26"}


def test_undo_recreate_and_controller_kill_9(apps, procs):  # a cluster of its own: it kills a controller
    apps.create(deployment("web", 6, strategy={"type": "Recreate"}))
    wait_until(lambda: status(apps, "web").get("availableReplicas") == 6, 60, what="6 available")
    apps.patch("Deployment", "web", {"spec": {"template": {"spec": {"containers": [
        {"name": "web", "image": "nginx:1.26"}]}}}})
    wait_until(lambda: status(apps, "web").get("updatedReplicas", 0) >= 1, 60, what="the rollout under way")
    procs.kill9(procs.deployments)
    procs.start("actors.controllers", "deployment", label="deploy-controller-again")
    assert kubus(procs, "rollout", "status", "deployment/web").returncode == 0
    live = [p for p in apps.list("Pod", "default").items if not p["metadata"].get("deletionTimestamp")]
    assert len(live) == 6
    undo = kubus(procs, "rollout", "undo", "deployment/web")
    assert undo.stdout.strip() == "deployment.apps/web rolled back", undo.stderr
    wait_until(lambda: {p["spec"]["containers"][0]["image"] for p in apps.list("Pod", "default").items
                        if not p["metadata"].get("deletionTimestamp")} == {"nginx:1.25"}
               and status(apps, "web").get("availableReplicas") == 6, 90, what="back on nginx:1.25")
    revisions = sorted(int(r["metadata"]["annotations"]["deployment.kubernetes.io/revision"])
                       for r in apps.list("ReplicaSet", "default").items)
    assert revisions == [2, 3]  # the rolled-back set takes the next revision


@pytest.mark.shared_plane  # the module's plane (nodes, controllers), a namespace of its own
def test_scaling_mid_rollout_converges(apps, procs):
    apps.create(deployment("web", 10, strategy={"type": "RollingUpdate", "rollingUpdate": {
        "maxSurge": 3, "maxUnavailable": 0}}))
    wait_until(lambda: status(apps, "web").get("availableReplicas") == 10, 60, what="10 available")
    apps.patch("Deployment", "web", {"spec": {"template": {"spec": {"containers": [
        {"name": "web", "image": "nginx:1.26"}]}}}})
    wait_until(lambda: len([r for r in apps.list("ReplicaSet", apps.namespace).items if r["spec"]["replicas"]]) == 2,
               60, what="two active sets")
    apps.patch("Deployment", "web", {"spec": {"replicas": 16}})
    assert kubus(procs, "rollout", "status", "deployment/web", "-n", apps.namespace).returncode == 0
    live = [p for p in apps.list("Pod", apps.namespace).items if not p["metadata"].get("deletionTimestamp")]
    assert len(live) == 16 and {p["spec"]["containers"][0]["image"] for p in live} == {"nginx:1.26"}


@pytest.mark.shared_plane  # the module's plane (nodes, controllers), a namespace of its own
def test_adopts_an_orphan_replicaset_with_its_template(apps):
    d = deployment("web", 2)
    orphan = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web-orphan", "labels": LABELS},
              "spec": {k: d["spec"][k] for k in ("replicas", "selector", "template")}}
    apps.create(orphan)
    wait_until(lambda: (apps.get("ReplicaSet", "web-orphan").get("status") or {}).get("availableReplicas") == 2, 60,
               what="the orphan's 2 pods available")
    pods = {p["metadata"]["uid"] for p in apps.list("Pod", apps.namespace).items}
    created = apps.create(d)
    wait_until(lambda: status(apps, "web").get("availableReplicas") == 2, 60, what="the Deployment available")
    owner = apps.get("ReplicaSet", "web-orphan")["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["uid"], owner["controller"]) == ("Deployment", created["metadata"]["uid"], True)
    assert [rs["metadata"]["name"] for rs in apps.list("ReplicaSet", apps.namespace).items] == ["web-orphan"]
    assert {p["metadata"]["uid"] for p in apps.list("Pod", apps.namespace).items} == pods


@pytest.mark.shared_plane  # the module's plane (nodes, controllers), a namespace of its own
def test_rollout_restart_history_pause_resume(apps, procs):
    def rollout(verb: str):
        return kubus(procs, "rollout", verb, "deployment/web", "-n", apps.namespace)
    apps.create(deployment("web", 2))
    wait_until(lambda: status(apps, "web").get("availableReplicas") == 2, 60, what="2 available")
    before = {p["metadata"]["uid"] for p in apps.list("Pod", apps.namespace).items}
    assert rollout("restart").stdout.strip() == "deployment.apps/web restarted"
    done = rollout("status")
    assert done.returncode == 0, done.stderr
    live = [p for p in apps.list("Pod", apps.namespace).items if not p["metadata"].get("deletionTimestamp")]
    assert len(live) == 2 and not before & {p["metadata"]["uid"] for p in live}  # every pod replaced
    table = rollout("history").stdout.splitlines()
    assert table[0] == "deployment.apps/web" and table[1].split() == ["REVISION", "CHANGE-CAUSE"]
    assert [line.split()[0] for line in table[2:]] == ["1", "2"]
    assert rollout("pause").stdout.strip() == "deployment.apps/web paused"
    assert apps.get("Deployment", "web")["spec"]["paused"] is True
    assert rollout("resume").stdout.strip() == "deployment.apps/web resumed"
    assert not apps.get("Deployment", "web")["spec"].get("paused")
