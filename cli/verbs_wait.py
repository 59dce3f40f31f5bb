"""`kubus wait`: until objects meet a condition (`--for=condition=Ready`) or are gone
(`--for=delete`), following a watch as kubectl does, never polling."""
from __future__ import annotations

import queue
import re
import time
from dataclasses import dataclass
from typing import Callable, Iterator

import click

from api.errors import not_found
from api.registry import KindInfo
from api.status import StatusError
from cli.session import connected
from cli.verbs_patch import object_name, targets
from runtime.cache import Delta
from runtime.client import Client, Watch

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
A_WEEK_S = 7 * 24 * 3600.0  # kubectl's wait for a negative --timeout


def parse_duration(text: str) -> float:
    """Seconds in a Go duration (`30s`, `1m30s`, `500ms`, `0`); kubectl's --timeout."""
    sign, body = (-1.0, text[1:]) if text.startswith("-") else (1.0, text.lstrip("+"))
    if body == "0":
        return 0.0
    parts = _DURATION.findall(body)
    if not parts or "".join(n + u for n, u in parts) != body:
        raise click.BadParameter(f'time: invalid duration "{text}"' if any(c.isalpha() for c in body)
                                 else f'time: missing unit in duration "{text}"', param_hint="--timeout")
    return sign * sum(float(n) * _UNITS[u] for n, u in parts)


@dataclass(frozen=True)
class Condition:
    """`--for=condition=NAME[=VALUE]`: a status condition of that type (any case) with that status
    (True when not given), and not stale: its observedGeneration reaches metadata.generation."""

    name: str
    status: str = "True"

    @classmethod
    def parse(cls, text: str) -> "Condition":
        name, _, status = text.partition("=")
        if not name:
            raise click.BadParameter("condition name is empty", param_hint="--for")
        return cls(name, status or "True")

    def met(self, obj: dict) -> bool:
        status = obj.get("status") or {}
        for c in status.get("conditions") or []:
            if str(c.get("type", "")).lower() != self.name.lower() or "status" not in c:
                continue
            generation = obj["metadata"].get("generation")
            observed = c.get("observedGeneration", status.get("observedGeneration"))
            if generation is not None and observed is not None and observed < generation:
                return False
            return str(c["status"]).lower() == self.status.lower()
        return False


def _changes(watch: Watch, name: str, after: int, deadline: float, clock: Callable[[], float]) -> Iterator[Delta]:
    """The watch's deltas of object `name` newer than revision `after`, until `deadline`."""
    while (left := deadline - clock()) > 0:
        try:
            delta = watch.next(timeout=left)
        except queue.Empty:
            return
        if delta.rev > after and delta.object["metadata"]["name"] == name:
            yield delta


def until_condition(client: Client, watch: Watch, info: KindInfo, name: str, ns: str | None, condition: Condition,
                    deadline: float, clock: Callable[[], float] = time.monotonic) -> bool:
    """True once the object meets `condition`, False at the deadline; NotFound if it is (or goes) away."""
    obj = client.get(info.kind, name, ns)
    if condition.met(obj):
        return True
    for delta in _changes(watch, name, int(obj["metadata"]["resourceVersion"]), deadline, clock):
        if delta.type == "DELETED":
            raise not_found(info.kind, name)
        if condition.met(delta.object):
            return True
    return False


def until_deleted(client: Client, watch: Watch, info: KindInfo, name: str, ns: str | None, deadline: float,
                  clock: Callable[[], float] = time.monotonic) -> bool | None:
    """None if the object was not there to begin with; True once it is deleted (or replaced by one
    of another uid), False at the deadline."""
    try:
        obj = client.get(info.kind, name, ns)
    except StatusError as exc:
        if exc.reason == "NotFound":  # gone before the read: but was it there when the watch began?
            return True if _in_snapshot(watch, name) else None
        raise
    uid = obj["metadata"].get("uid")
    for delta in _changes(watch, name, int(obj["metadata"]["resourceVersion"]), deadline, clock):
        if delta.type == "DELETED" or delta.object["metadata"].get("uid") != uid:
            return True
    return False


def _in_snapshot(watch: Watch, name: str) -> bool:
    """Whether the synced watch's deltas already in hand (its snapshot) name the object."""
    while True:
        try:
            delta = watch.next(timeout=0)
        except queue.Empty:
            return False
        if delta.object["metadata"]["name"] == name:
            return True


def _check(client: Client, info: KindInfo, name: str, ns: str | None, want: str, deadline: float) -> bool | None:
    watch = client.watch(info.kind, ns)  # started before the read: no change in between is lost
    try:
        watch.wait_synced(max(deadline - time.monotonic(), 1.0))
        if want == "delete":
            return until_deleted(client, watch, info, name, ns, deadline)
        return until_condition(client, watch, info, name, ns, Condition.parse(want), deadline)
    except queue.Empty:  # the watch did not start in time
        return False
    finally:
        watch.close()


@click.command("wait")
@click.argument("resources", nargs=-1, required=True)
@click.option("--for", "for_", required=True, help="delete, or condition=NAME[=VALUE].")
@click.option("--timeout", default="30s", help="How long to wait: 30s, 5m, 0 to check once.")
@click.option("-n", "--namespace", default=None)
def wait(resources: tuple[str, ...], for_: str, timeout: str, namespace: str | None) -> None:
    """Wait for objects to meet a condition or be deleted: `kubus wait --for=condition=Ready pod/web`."""
    want = _wanted(for_)
    seconds = parse_duration(timeout)
    deadline = time.monotonic() + (A_WEEK_S if seconds < 0 else seconds)
    with connected() as client:
        for info, name in targets(resources):
            ns = (namespace or "default") if info.namespaced else None
            met = _check(client, info, name, ns, want, deadline)
            if met is False:
                what = "condition not met for" if seconds == 0 else "timed out waiting for the condition on"
                raise click.ClickException(f"{what} {info.plural}/{name}")
            if met:
                click.echo(f"{object_name(info, name)} condition met")


def _wanted(text: str) -> str:
    if text.lower() == "delete":
        return "delete"
    kind, _, rest = text.partition("=")
    if kind.lower() != "condition" or not rest:
        raise click.BadParameter("unrecognized condition: expected delete or condition=NAME[=VALUE]",
                                 param_hint="--for")
    Condition.parse(rest)
    return rest
