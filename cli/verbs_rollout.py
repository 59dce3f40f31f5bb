"""`kubus rollout` (status, undo, history, restart, pause, resume) and `kubus scale`: kubectl's verbs of a
Deployment's (and status, undo, history of a DaemonSet's and a StatefulSet's) rollout and of a workload's replicas."""
from __future__ import annotations

import click

from cli import rollout as rollout_view, rollout_daemonset
from cli.session import connected, kind_info as _kind


@click.group()
def rollout() -> None:
    """Follow or undo a Deployment's, a DaemonSet's or a StatefulSet's rollout."""


@rollout.command("status")
@click.argument("target")
@click.option("-n", "--namespace", default="default")
@click.option("-w", "--watch/--no-watch", default=True)
def rollout_status(target: str, namespace: str, watch: bool) -> None:
    """Print the rollout's progress until it completes (exit 0) or misses its deadline (exit 1)."""
    kind, name = _rolled(target)
    status_line = {"DaemonSet": rollout_daemonset.status_line,
                   "StatefulSet": rollout_daemonset.statefulset_status_line}.get(kind, rollout_view.status_line)
    with connected() as client:
        events = client.watch(kind, namespace) if watch else None
        last = None
        d = client.get(kind, name, namespace)
        while True:
            message, done = status_line(d)
            if message != last:
                click.echo(message)
                last = message
            if done or not watch:
                return
            d = next(delta.object for delta in events if delta.object["metadata"]["name"] == name)


@rollout.command("undo")
@click.argument("target")
@click.option("-n", "--namespace", default="default")
@click.option("--to-revision", type=int, default=None)
def rollout_undo(target: str, namespace: str, to_revision: int | None) -> None:
    """Roll back to the previous revision (or --to-revision)."""
    kind, name = _rolled(target)
    with connected() as client:
        if kind == "Deployment":
            click.echo(rollout_view.undo(client, name, namespace, to_revision))
        else:
            click.echo(rollout_daemonset.undo(client, name, namespace, to_revision, kind))


def _rollout_action(action, *args) -> None:
    """Run one rollout action on `deployment/NAME` and print its line."""
    def command(target: str, namespace: str) -> None:
        kind, name = _rolled(target)
        with connected() as client:
            if kind != "Deployment" and action is rollout_view.history:
                click.echo(rollout_daemonset.history(client, name, namespace, kind))
            else:
                click.echo(action(client, _deployment_name(target), namespace, *args))
    return command


for _name, _help, _action, _args in (
        ("history", "List the Deployment's revisions.", rollout_view.history, ()),
        ("restart", "Roll every pod of the Deployment, one template change.", rollout_view.restart, ()),
        ("pause", "Stop the Deployment from rolling out template changes.", rollout_view.pause, (True,)),
        ("resume", "Let a paused Deployment roll out again.", rollout_view.pause, (False,))):
    rollout.command(_name, help=_help)(click.argument("target")(click.option("-n", "--namespace", default="default")(
        _rollout_action(_action, *_args))))


@click.command()
@click.argument("target")
@click.argument("name", required=False)
@click.option("--replicas", type=int, required=True)
@click.option("-n", "--namespace", default="default")
def scale(target: str, name: str | None, replicas: int, namespace: str) -> None:
    """Set replicas of a Deployment, ReplicaSet, RC or StatefulSet: `kubus scale deployment/web --replicas 5`
    (or `deployment web`)."""
    kind, _, slashed = target.partition("/")
    if slashed and name:
        raise click.UsageError("give the target as KIND/NAME or KIND NAME, not both")
    name = slashed or name
    info = _kind(kind if name else "deployment")
    if info.kind not in ("Deployment", "ReplicaSet", "ReplicationController", "StatefulSet"):
        raise click.BadParameter(f"{target}: only deployments, replicasets, replicationcontrollers and "
                                 "statefulsets scale",
                                 param_hint="target")
    name = name or kind
    with connected() as client:
        client.patch(info.kind, name, {"spec": {"replicas": replicas}}, namespace)
    click.echo(f"{info.resource}/{name} scaled")


def _rolled(target: str) -> tuple[str, str]:
    """(kind, name) of `daemonset/NAME` or `statefulset/NAME` (or `ds/NAME`, `sts/NAME`); a Deployment otherwise."""
    kind, _, name = target.partition("/")
    if name and _kind(kind).kind in ("DaemonSet", "StatefulSet"):
        return _kind(kind).kind, name
    return "Deployment", _deployment_name(target)


def _deployment_name(target: str) -> str:
    kind, _, name = target.partition("/")
    if name and _kind(kind).kind != "Deployment":
        raise click.BadParameter(f"{target}: only deployments roll out")
    return name or kind
