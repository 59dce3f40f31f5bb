"""Slow: kill -9 each control-plane actor in turn during a rollout; it still completes with exactly
the replicas asked for."""
from __future__ import annotations


import pytest

from testkit.waiting import wait_until
from tests.integration.test_deployment import deployment, status
from testkit import cli

pytestmark = pytest.mark.slow


def test_rollout_survives_every_actor_being_killed(apps, procs):
    apps.create(deployment("web", 12))
    wait_until(lambda: status(apps, "web").get("availableReplicas") == 12, 90, what="12 available")
    apps.patch("Deployment", "web", {"spec": {"template": {"spec": {"containers": [
        {"name": "web", "image": "nginx:1.26"}]}}}})
    for module in ("actors.controllers", "actors.scheduler", "store", "actors.apiserver"):
        victims = [p for p in procs.procs if p.poll() is None and p.args[2] == module]
        for victim in victims:
            procs.kill9(victim)
            procs.start(*victim.args[2:], label=f"{module.rsplit('.', 1)[-1]}-again")
    done = cli.kubus("rollout", "status", "deployment/web", env=procs.env, timeout=300)
    assert done.returncode == 0, done.stderr
    live = [p for p in apps.list("Pod", "default").items if not p["metadata"].get("deletionTimestamp")]
    assert len(live) == 12 and {p["spec"]["containers"][0]["image"] for p in live} == {"nginx:1.26"}
    assert len({p["metadata"]["name"] for p in live}) == 12
