"""`kubus create job NAME --image=IMAGE [-- COMMAND]` and `--from=cronjob/NAME`, `kubus create cronjob
NAME --image=IMAGE --schedule=SPEC [-- COMMAND]`, as kubectl's `create job` and `create cronjob` build
them: one container named after the object; restartPolicy Never (Job) or OnFailure (CronJob); the
apiserver generates the selector. A Job from a CronJob carries its template, the
`cronjob.kubernetes.io/instantiate: manual` annotation and the CronJob as controller."""
from __future__ import annotations

import click

from api.cronjob import INSTANTIATE
from cli.session import connected
from cli.verbs import create, create_one


def _container(name: str, image: str, command: tuple[str, ...]) -> dict:
    container: dict = {"name": name, "image": image}
    if command:
        container["command"] = list(command)
    return container


def job_manifest(name: str, image: str, command: tuple[str, ...] = ()) -> dict:
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"template": {"spec": {"containers": [_container(name, image, command)],
                                           "restartPolicy": "Never"}}}}


def cronjob_manifest(name: str, image: str, schedule: str, command: tuple[str, ...] = (),
                     restart: str = "OnFailure") -> dict:
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": name},
            "spec": {"schedule": schedule, "jobTemplate": {"metadata": {"name": name}, "spec": {"template": {
                "spec": {"containers": [_container(name, image, command)], "restartPolicy": restart}}}}}}


def job_from_cronjob(name: str, cj: dict) -> dict:
    """kubectl's createJobFromCronJob."""
    template = cj["spec"].get("jobTemplate") or {}
    meta = template.get("metadata") or {}
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "annotations": {INSTANTIATE: "manual", **(meta.get("annotations") or {})},
                         "labels": dict(meta.get("labels") or {}),
                         "ownerReferences": [{"apiVersion": "batch/v1", "kind": "CronJob",
                                              "name": cj["metadata"]["name"], "uid": cj["metadata"]["uid"],
                                              "controller": True}]},
            "spec": template.get("spec") or {}}


@create.command("job")
@click.argument("name")
@click.argument("command", nargs=-1)
@click.option("--image", default=None, help="Image of the Job's container.")
@click.option("--from", "source", default=None, help="cronjob/NAME: a Job from the CronJob's template.")
@click.option("-n", "--namespace", default=None)
def create_job(name: str, command: tuple[str, ...], image: str | None, source: str | None,
               namespace: str | None) -> None:
    """Create a Job: `kubus create job pi --image=perl -- perl -Mbignum=bpi -wle 'print bpi(2000)'`."""
    if source is None:
        if not image:
            raise click.UsageError("--image is required")
        create_one(job_manifest(name, image, command), namespace)
        return
    kind, _, source_name = source.partition("/")
    if kind.lower() not in ("cronjob", "cronjobs", "cj", "cronjob.batch", "cronjobs.batch") or not source_name:
        raise click.UsageError(f"from must be an existing cronjob: {source}")
    with connected() as client:
        cj = client.get("CronJob", source_name, namespace or "default")
    create_one(job_from_cronjob(name, cj), namespace)


@create.command("cronjob")
@click.argument("name")
@click.argument("command", nargs=-1)
@click.option("--image", required=True, help="Image of the container.")
@click.option("--schedule", required=True, help="A cron schedule: '*/1 * * * *'.")
@click.option("--restart", default="OnFailure", type=click.Choice(["OnFailure", "Never"]))
@click.option("-n", "--namespace", default=None)
def create_cronjob(name: str, command: tuple[str, ...], image: str, schedule: str, restart: str,
                   namespace: str | None) -> None:
    """Create a CronJob: `kubus create cronjob tick --image=busybox --schedule='*/1 * * * *' -- date`."""
    create_one(cronjob_manifest(name, image, schedule, command, restart), namespace)
