"""CronJobs, ReplicationControllers and PodTemplates from kubectl 1.33 through the gateway: `create
cronjob`, `get cronjobs` columns, `create job --from=cronjob/x` (the manual-instantiate annotation
and the CronJob as owner), `scale rc`, `get podtemplates`; and `kubus create cronjob`, `create job --from`, `scale rc`."""
from __future__ import annotations

import os

import pytest

from api import cronjob
from tests.conftest import control_plane
from tests.e2e.conftest import running_gateway
from tests.e2e.test_kubectl import binary, kubectl_at, ok
from tests.integration.test_deployment import kubus
from testkit.people import token_of
from testkit.waiting import wait_until

pytestmark = pytest.mark.skipif(not os.path.exists(binary("1.33")), reason="no kubectl.1.33")


@pytest.fixture
def kube(procs, settings, tmp_path):
    """(a client, the gateway's URL, its CA); no nodes: these commands only write objects."""
    client = control_plane(procs, settings)
    with running_gateway(procs, settings, tmp_path) as (url, ca):
        yield client, url, ca
    client.close()


def test_kubectl_create_cronjob_get_columns_and_job_from_it(kube, settings, tmp_path):
    client, url, ca = kube
    kubectl = kubectl_at("1.33", tmp_path, url, ca, token_of(settings, "admin"))
    made = ok(kubectl("create", "cronjob", "nightly", "--image=busybox:1.36", "--schedule=0 3 * * *",
                      "--", "echo", "hi"))
    assert made.strip() == "cronjob.batch/nightly created"
    lines = ok(kubectl("get", "cronjobs")).splitlines()
    assert lines[0].split() == ["NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST", "SCHEDULE", "AGE"]
    assert lines[1].split()[:7] == ["nightly", "0", "3", "*", "*", "*", "<none>"]
    assert lines[1].split()[7:10] == ["False", "0", "<none>"]
    assert ok(kubectl("create", "job", "once", "--from=cronjob/nightly")).strip() == "job.batch/once created"
    job = client.get("Job", "once", "default")
    assert job["metadata"]["annotations"][cronjob.INSTANTIATE] == "manual"
    owner = job["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"]) == ("CronJob", "nightly")
    refused = kubectl("create", "cronjob", "bad", "--image=busybox", "--schedule=61 * * * *")
    assert refused.returncode != 0
    assert 'spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61' in refused.stderr
    assert "cronjob.batch/nightly" in ok(kubectl("get", "all"))
    assert "Schedule:" in ok(kubectl("describe", "cronjob", "nightly"))


def test_kubectl_scale_rc_and_get_podtemplates(kube, procs, settings, tmp_path):
    client, url, ca = kube
    kubectl = kubectl_at("1.33", tmp_path, url, ca, token_of(settings, "admin"))
    client.create({"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"},
                   "spec": {"replicas": 1, "template": {"metadata": {"labels": {"app": "rc"}},
                                                        "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}})
    assert ok(kubectl("scale", "rc", "rc", "--replicas=3")).strip() == "replicationcontroller/rc scaled"
    assert client.get("ReplicationController", "rc", "default")["spec"]["replicas"] == 3
    assert ok(kubectl("get", "rc")).splitlines()[0].split() == ["NAME", "DESIRED", "CURRENT", "READY", "AGE"]
    scaled = kubus(procs, "scale", "rc/rc", "--replicas", "2")
    assert scaled.returncode == 0, scaled.stderr
    assert client.get("ReplicationController", "rc", "default")["spec"]["replicas"] == 2
    client.create({"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "pt"},
                   "template": {"metadata": {"labels": {"app": "pt"}},
                                "spec": {"containers": [{"name": "c", "image": "busybox"}]}}})
    lines = ok(kubectl("get", "podtemplates")).splitlines()
    assert lines[0].split() == ["TEMPLATE", "CONTAINERS", "IMAGES", "POD", "LABELS"]
    assert lines[1].split() == ["pt", "c", "busybox", "app=pt"]


def test_kubus_create_cronjob(kube, procs):
    made = kubus(procs, "create", "cronjob", "tick", "--image=busybox:1.36", "--schedule=*/5 * * * *")
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip() == "cronjob.batch/tick created"
    listed = kubus(procs, "get", "cronjobs")
    assert listed.stdout.splitlines()[1].split()[:6] == ["tick", "*/5", "*", "*", "*", "*"]
    made = kubus(procs, "create", "job", "now", "--from=cronjob/tick")
    assert made.returncode == 0, made.stderr
    wait_until(lambda: kube[0].get("Job", "now", "default"), 10, what="the Job from the CronJob")
