"""`kubus patch`: a merge, JSON (RFC 6902) or strategic merge patch, sent as it is through the
apiserver's patch verb, which applies it (api/patch/apply) to the object as stored; and the
read-modify-write that other verbs (label, annotate, set image) use.
"""
from __future__ import annotations

import copy
from typing import Any, Callable

import click
import yaml

from api.registry import KindInfo
from api.status import StatusError
from cli.session import connected, kind_info
from runtime.client import Client

CONFLICT_RETRIES = 5  # a read-modify-write that loses the race this often reports the Conflict


def read_modify_write(client: Client, info: KindInfo, name: str, ns: str | None,
                      change: Callable[[dict], dict]) -> tuple[dict, bool]:
    """Get the object, change a copy, update it with its resourceVersion; again on Conflict.
    Returns the object as stored and whether anything changed (no write when nothing did)."""
    attempt = 1
    while True:
        current = client.get(info.kind, name, ns)
        wanted = change(copy.deepcopy(current))
        if wanted == current:
            return current, False
        try:
            return client.update(wanted), True
        except StatusError as exc:
            if exc.reason != "Conflict" or attempt >= CONFLICT_RETRIES:
                raise
            attempt += 1


def object_name(info: KindInfo, name: str) -> str:
    """How kubectl names an object in its output: `pod/x`, `deployment.apps/web`."""
    return f"{info.kind.lower()}{'.' + info.group if info.group else ''}/{name}"


def targets(args: tuple[str, ...]) -> list[tuple[KindInfo, str]]:
    """`KIND/NAME...` or `KIND NAME...`, as kubectl's resource arguments read."""
    if args and all("/" in a for a in args):
        pairs = [a.split("/", 1) for a in args]
        return [(kind_info(k), n) for k, n in pairs]
    if len(args) < 2 or any("/" in a for a in args):
        raise click.UsageError("name the objects: KIND/NAME... or KIND NAME...")
    info = kind_info(args[0])
    return [(info, n) for n in args[1:]]


def _parse(text: str, kind: str) -> Any:
    """The patch as JSON or YAML (kubectl reads either)."""
    try:
        body = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise click.BadParameter(f"unable to parse {text!r}: {exc}", param_hint="-p") from None
    if kind in ("merge", "strategic") and not isinstance(body, dict):
        raise click.BadParameter(f"a {kind} patch is a JSON object", param_hint="-p")
    if kind == "json" and not isinstance(body, list):
        raise click.BadParameter("a JSON patch is a list of operations", param_hint="-p")
    return body


@click.command("patch")
@click.argument("target", nargs=-1, required=True)
@click.option("-p", "--patch", "text", required=True, help="The patch, as JSON or YAML.")
@click.option("--type", "patch_type", type=click.Choice(["merge", "json", "strategic"]), default="merge",
              help="merge: RFC 7386; json: RFC 6902 operations; strategic: Kubernetes' strategic merge patch.")
@click.option("-n", "--namespace", default=None)
def patch(target: tuple[str, ...], text: str, patch_type: str, namespace: str | None) -> None:
    """Change fields of an object: `kubus patch pod web -p '{"metadata":{"labels":{"a":"b"}}}'`."""
    found = targets(target)
    if len(found) != 1:
        raise click.UsageError("name one object: KIND NAME or KIND/NAME")
    info, name = found[0]
    ns = (namespace or "default") if info.namespaced else None
    body = _parse(text, patch_type)
    with connected() as client:
        before = client.get(info.kind, name, ns)["metadata"]["resourceVersion"]
        try:
            patched = client.patch(info.kind, name, body, ns, patch_type=patch_type)
        except StatusError as exc:
            if exc.reason != "Invalid" or exc.details.get("name") or not exc.causes:
                raise
            raise click.ClickException(f"The request is invalid: {'; '.join(c.message for c in exc.causes)}") from None
    changed = patched["metadata"]["resourceVersion"] != before
    click.echo(f"{object_name(info, name)} patched{'' if changed else ' (no change)'}")
