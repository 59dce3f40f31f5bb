"""`kubus create job NAME --image=IMAGE [-- COMMAND]`, as kubectl's `create job` builds it: one
container named after the Job, restartPolicy Never; the apiserver generates the selector."""
from __future__ import annotations

import click

from cli.verbs import create, create_one


def job_manifest(name: str, image: str, command: tuple[str, ...] = ()) -> dict:
    container: dict = {"name": name, "image": image}
    if command:
        container["command"] = list(command)
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
            "spec": {"template": {"spec": {"containers": [container], "restartPolicy": "Never"}}}}


@create.command("job")
@click.argument("name")
@click.argument("command", nargs=-1)
@click.option("--image", required=True, help="Image of the Job's container.")
@click.option("-n", "--namespace", default=None)
def create_job(name: str, command: tuple[str, ...], image: str, namespace: str | None) -> None:
    """Create a Job: `kubus create job pi --image=perl -- perl -Mbignum=bpi -wle 'print bpi(2000)'`."""
    create_one(job_manifest(name, image, command), namespace)
