"""Probes on real containers: an exec liveness probe (ExecSync) that fails gets its container killed
and restarted; an httpGet readiness probe reaches a python http.server on the pod's IP and the
container is ready only once the page is there. One cri cluster for the module, its pods named apart."""
from __future__ import annotations

from datetime import datetime

import pytest

from tests.integration.cri.test_cri_pods import container, pod, state
from testkit.waiting import wait_until

PYTHON = "kubus/python:3.11.2-bookworm"


@pytest.fixture
def node(cri_module):
    """The module's cri cluster's client."""
    return cri_module.client


def test_a_failing_exec_liveness_probe_restarts_the_container(node):
    """The script never ends by itself: only the probe's kill restarts it, after the file is gone
    (a probe of a container still being created would fail and kill it before it ran)."""
    script = "touch /tmp/healthy; sleep 2; rm /tmp/healthy; trap 'exit 0' TERM; sleep 1000 & wait"
    probe = {"exec": {"command": ["cat", "/tmp/healthy"]}, "periodSeconds": 1, "failureThreshold": 1}
    node.create(pod("sick", script, policy="Always", livenessProbe=probe))
    restarted = wait_until(lambda: container(node, "sick").get("restartCount", 0) >= 1
                           and container(node, "sick"), 60, what="the liveness probe's restart")
    last = restarted["lastState"]["terminated"]
    assert last["message"] == "Container main failed liveness probe, will be restarted", last
    started, finished = (datetime.fromisoformat(last[k].replace("Z", "+00:00")) for k in ("startedAt", "finishedAt"))
    assert (finished - started).total_seconds() >= 2, last  # it ran past its healthy seconds first


def test_an_http_readiness_probe_reaches_the_pod_ip(node):
    # the page appears 3 s after the server first answers
    script = ("cd /tmp; (until wget -qO /dev/null http://127.0.0.1:8000/; do sleep 0.2; done; sleep 3; "
              "echo ok > ready.txt) & exec python3 -u -m http.server --bind 0.0.0.0 8000")
    probe = {"httpGet": {"path": "/ready.txt", "port": 8000}, "periodSeconds": 1}
    web = pod("web", script, policy="Always", image=PYTHON, readinessProbe=probe)
    # http.server looks its own name up (socket.getfqdn) as it binds: with no DNS actor in this cluster the
    # cluster's nameserver times out for 20 s; a nameserver inside the pod refuses at once
    web["spec"].update(dnsPolicy="None", dnsConfig={"nameservers": ["127.0.0.1"]})
    node.create(web)
    early = wait_until(lambda: state(node, "web", "running") and container(node, "web"), 60,
                       what="web running")
    assert early["ready"] is False, early
    wait_until(lambda: container(node, "web").get("ready"), 30, what="web ready")
    conditions = {c["type"]: c["status"] for c in node.get("Pod", "web")["status"]["conditions"]}
    assert conditions["Ready"] == "True"
    served = node.logs("web")["text"]
    assert '"GET /ready.txt HTTP/1.1" 404' in served and '"GET /ready.txt HTTP/1.1" 200' in served, served
