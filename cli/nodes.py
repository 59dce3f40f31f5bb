"""`kubus cordon`, `uncordon` and `drain`: take a node out of scheduling and move its pods off it."""
from __future__ import annotations

import time

import click

from api.status import StatusError
from cli.session import connected
from runtime.client import Client

DRAIN_POLL_S = 0.5  # how often drain looks whether the evicted pods are gone (kubectl: 1 s)
EVICT_RETRY_S = 5.0  # kubectl drain tries a refused eviction again after 5 s


def set_unschedulable(c: Client, node: str, value: bool) -> str:
    """'cordoned', 'uncordoned', or 'already ...' when the node was so."""
    word = "cordoned" if value else "uncordoned"
    if bool((c.get("Node", node).get("spec") or {}).get("unschedulable")) == value:
        return f"node/{node} already {word}"
    c.patch("Node", node, {"spec": {"unschedulable": value or None}})
    return f"node/{node} {word}"


def _marking(value: bool):
    @click.argument("node")
    def command(node: str) -> None:
        with connected() as c:
            click.echo(set_unschedulable(c, node, value))
    return command


cordon = click.command("cordon", help="Mark NODE unschedulable: running pods stay, new ones go elsewhere.")(
    _marking(True))
uncordon = click.command("uncordon", help="Mark NODE schedulable again.")(_marking(False))


@click.command()
@click.argument("node")
@click.option("--force", is_flag=True, help="Also delete pods no controller will recreate.")
@click.option("--grace-period", type=int, default=None, help="Seconds each pod gets to stop (default: its own).")
@click.option("--timeout", type=float, default=300.0, help="Seconds to wait for the pods to be gone.")
def drain(node: str, force: bool, grace_period: int | None, timeout: float) -> None:
    """Cordon NODE, then evict its pods (as their PodDisruptionBudgets allow, retrying the refused ones
    as kubectl drain does) and wait until they are gone (their controllers recreate them elsewhere)."""
    with connected() as c:
        click.echo(set_unschedulable(c, node, True))
        pods = [p for p in c.list("Pod", None, field_selector=f"spec.nodeName={node}").items
                if not p["metadata"].get("deletionTimestamp")]
        bare = [_name(p) for p in pods if not _controlled(p)]
        if bare and not force:
            raise click.ClickException("cannot delete Pods that declare no controller (use --force to "
                                       f"override): {', '.join(bare)}")
        deadline = time.monotonic() + timeout
        options = {} if grace_period is None else {"gracePeriodSeconds": grace_period}
        _evict_all(c, node, pods, options, deadline, timeout)
        _wait_gone(c, pods, max(0.0, deadline - time.monotonic()))
    click.echo(f"node/{node} drained")


def _evict_all(c: Client, node: str, pods: list[dict], options: dict, deadline: float, timeout: float) -> None:
    """Each pod's eviction; one a budget refuses (429) is tried again every EVICT_RETRY_S until the
    deadline, with kubectl's words."""
    pending = list(pods)
    while pending:
        refused = []
        for pod in pending:
            meta = pod["metadata"]
            click.echo(f"evicting pod {_name(pod)}")
            try:
                c.request("evict", "Pod", namespace=meta["namespace"], name=meta["name"], options=options)
            except StatusError as exc:
                if exc.reason == "NotFound":
                    continue
                if exc.reason != "TooManyRequests":
                    raise
                click.echo(f'error when evicting pods/"{meta["name"]}" -n "{meta["namespace"]}" '
                           f"(will retry after {EVICT_RETRY_S:g}s): {exc.message}", err=True)
                refused.append(pod)
        if refused and time.monotonic() + EVICT_RETRY_S > deadline:
            meta = refused[0]["metadata"]
            raise click.ClickException(f'unable to drain node "{node}" due to error: error when evicting '
                                       f'pods/"{meta["name"]}" -n "{meta["namespace"]}": global timeout reached: '
                                       f"{timeout:g}s")
        if refused:
            time.sleep(EVICT_RETRY_S)
        pending = refused


def _controlled(pod: dict) -> bool:
    return any(ref.get("controller") for ref in pod["metadata"].get("ownerReferences") or [])


def _name(pod: dict) -> str:
    return f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"


def _wait_gone(c: Client, pods: list[dict], timeout: float) -> None:
    """Until each pod is gone (or replaced by another with its name), printing each as it goes."""
    waiting = {p["metadata"]["uid"]: p for p in pods}
    deadline = time.monotonic() + timeout
    while waiting:
        for uid, pod in list(waiting.items()):
            try:
                still = c.get("Pod", pod["metadata"]["name"], pod["metadata"]["namespace"])["metadata"]["uid"] == uid
            except StatusError as exc:
                if exc.reason != "NotFound":
                    raise
                still = False
            if not still:
                click.echo(f"pod/{pod['metadata']['name']} evicted")
                del waiting[uid]
        if waiting and time.monotonic() > deadline:
            raise click.ClickException(f"drain did not complete within {timeout:g}s: "
                                       f"{', '.join(_name(p) for p in waiting.values())} still there")
        if waiting:
            time.sleep(DRAIN_POLL_S)
