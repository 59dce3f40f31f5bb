"""CronJob, ReplicationController and PodTemplate through admission: defaults, Kubernetes' messages,
and kubectl's columns."""
from __future__ import annotations

import pytest

from api.admission import admit
from api.printers.columns import header, row
from api.status import StatusError

CONTAINERS = [{"name": "c", "image": "busybox"}]


def cronjob(name="hello", **spec) -> dict:
    template = {"spec": {"template": {"spec": {"restartPolicy": "OnFailure", "containers": CONTAINERS}}}}
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": name},
            "spec": {"schedule": "*/1 * * * *", "jobTemplate": template, **spec}}


def causes(kind: str, obj: dict) -> list[str]:
    with pytest.raises(StatusError) as caught:
        admit(kind, obj)
    return [f"{c.field}: {c.message}" for c in caught.value.causes]


def test_a_cronjob_gets_kubernetes_defaults():
    spec = admit("CronJob", cronjob())["spec"]
    assert (spec["concurrencyPolicy"], spec["suspend"], spec["successfulJobsHistoryLimit"],
            spec["failedJobsHistoryLimit"]) == ("Allow", False, 3, 1)
    assert spec["jobTemplate"]["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == 30


@pytest.mark.parametrize("obj, message", [
    (cronjob("x" * 53), f'metadata.name: Invalid value: "{"x" * 53}": must be no more than 52 characters'),
    (cronjob(schedule="* * *"), 'spec.schedule: Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]'),
    (cronjob(schedule=""), "spec.schedule: Required value"),
    (cronjob(schedule="TZ=UTC 0 * * * *"), 'spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or '
                                          "CRON_TZ in schedule, use timeZone field instead"),
    (cronjob(timeZone="Local"), 'spec.timeZone: Invalid value: "Local": timeZone must be an explicit time zone as '
                                "defined in https://www.iana.org/time-zones"),
    (cronjob(timeZone="Mars/Olympus"), 'spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus'),
    (cronjob(timeZone=""), 'spec.timeZone: Invalid value: "": timeZone must be nil or non-empty string'),
    (cronjob(timeZone="../etc"), 'spec.timeZone: Invalid value: "../etc": unknown time zone ../etc'),
    (cronjob(startingDeadlineSeconds=-1), "spec.startingDeadlineSeconds: Invalid value: -1: must be greater than "
                                          "or equal to 0"),
    (cronjob(failedJobsHistoryLimit=-1), "spec.failedJobsHistoryLimit: Invalid value: -1: must be greater than or "
                                         "equal to 0"),
])
def test_a_bad_cronjob_has_kubernetes_message(obj, message):
    assert message in causes("CronJob", obj)


def test_the_job_template_is_validated_as_a_job_with_its_path():
    obj = cronjob()
    obj["spec"]["jobTemplate"]["spec"]["template"]["spec"]["restartPolicy"] = "Always"
    assert 'spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", ' \
           '"Never"' in causes("CronJob", obj)


def test_a_valid_time_zone_is_taken():
    assert admit("CronJob", cronjob(timeZone="Europe/Berlin"))["spec"]["timeZone"] == "Europe/Berlin"


def rc(**spec) -> dict:
    return {"apiVersion": "v1", "kind": "ReplicationController", "metadata": {"name": "rc"},
            "spec": {"template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": CONTAINERS}},
                     **spec}}


def test_an_rc_defaults_its_selector_labels_and_replicas_from_the_template():
    made = admit("ReplicationController", rc())
    assert made["spec"]["selector"] == {"app": "web"} and made["metadata"]["labels"] == {"app": "web"}
    assert made["spec"]["replicas"] == 1


@pytest.mark.parametrize("spec, message", [
    ({"selector": {"app": "db"}}, "spec.template.metadata.labels: Invalid value: map[app:web]: `selector` does "
                                  "not match template `labels`"),
    ({"template": None, "selector": {"a": "b"}}, "spec.template: Required value"),
])
def test_a_bad_rc_has_kubernetes_message(spec, message):
    assert message in causes("ReplicationController", rc(**spec))


def test_an_rc_pod_must_restart_always_and_have_no_deadline():
    obj = rc()
    obj["spec"]["template"]["spec"].update(restartPolicy="Never", activeDeadlineSeconds=5)
    found = causes("ReplicationController", obj)
    assert 'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"' in found
    assert "spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicationController " \
           "is not Supported" in found


def test_a_pod_template_is_validated_as_a_pod():
    found = causes("PodTemplate", {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "pt"},
                                   "template": {"spec": {"containers": []}}})
    assert found == ["template.spec.containers: Required value"]


def test_kubectl_columns():
    cj = admit("CronJob", cronjob(timeZone="Etc/UTC"))
    cj["metadata"]["creationTimestamp"] = "2024-01-01T00:00:00Z"
    assert header("CronJob", False, False) == ["NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE",
                                               "AGE"]
    assert row("CronJob", cj, False, False)[:6] == ["hello", "*/1 * * * *", "Etc/UTC", "False", "0", "<none>"]
    assert row("CronJob", cj, True, False)[7:] == ["c", "busybox", "<none>"]
    made = admit("ReplicationController", rc(replicas=3))
    made["metadata"]["creationTimestamp"] = "2024-01-01T00:00:00Z"
    assert row("ReplicationController", made, True, False)[:4] == ["rc", "3", "0", "0"]
    assert row("ReplicationController", made, True, False)[5:] == ["c", "busybox", "app=web"]
