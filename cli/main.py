"""`kubus`: apply, get, delete, describe manifests over the bus; `up` starts a cluster."""
from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass

import click
import yaml

from api import selectors
from api.managedfields import raw
from api.registry import lookup
from api.status import StatusError
from api.printers import columns as printers
from cli import jsonpath, manifests, metadata, nodes
from cli.auth import auth
from cli.deadletters import dead_letters
from cli.expose import expose
from cli.apply import apply_one
from cli.describe import describe as describe_text
from cli.session import Commands, client as _client, connected, fail as _fail, kind_info as _kind
from cli.kubeconfig import config_group
from cli.status import status
from cli.verbs import create, run, set_group
from cli import verbs_batch, verbs_config  # noqa: F401  (add `create job`, `create configmap`, `create secret …`)
from cli.verbs_patch import patch
from cli.verbs_rollout import rollout, scale
from cli.verbs_tables import api_resources, events
from cli.verbs_wait import wait
from cli.verbs_image import image
from runtime.client import Client, Watch

FOLLOW_POLL_S = 0.5
ALL = "pods,services,deployments,replicasets"
OUTPUTS = ("wide", "yaml", "json", "name")  # `kubus get all`: the workload kinds kubus serves


@click.group(cls=Commands)
def main() -> None:
    """kubus: a Kubernetes-style control plane on RabbitMQ."""


@main.command()
@click.option("-f", "--filename", "paths", multiple=True, required=True, help="File, directory or - for stdin.")
@click.option("-n", "--namespace", default=None)
def apply(paths: tuple[str, ...], namespace: str | None) -> None:
    """Create or update every resource in the manifests; one line per document."""
    failed = 0
    with _client() as client:
        for path in paths:
            for doc in manifests.read(path):
                failed += not _apply_doc(client, doc, namespace)
    if failed:
        sys.exit(1)


def _apply_doc(client: Client, doc: manifests.Document, namespace: str | None) -> bool:
    if doc.error or doc.obj is None:
        click.echo(f"error: {doc.error or doc.source + ': not an object'}", err=True)
        return False
    kind = doc.obj.get("kind") or "?"
    name = (doc.obj.get("metadata") or {}).get("name") or (doc.obj.get("metadata") or {}).get("generateName", "")
    try:
        result = apply_one(client, doc.obj, namespace)
    except StatusError as exc:
        click.echo(f"error: {doc.source}: {kind.lower()}/{name}: {exc.message} ({exc.reason})", err=True)
        return False
    click.echo(f"{lookup(kind).kind.lower()}/{name} {result}")
    return True


@main.command()
@click.argument("kind")
@click.argument("name", required=False)
@click.option("-n", "--namespace", default=None)
@click.option("-A", "--all-namespaces", is_flag=True)
@click.option("-l", "--selector", default=None, help="Label selector, e.g. app=web,tier!=db")
@click.option("--field-selector", default=None)
@click.option("-o", "--output", default=None, callback=lambda _c, _p, v: _output(v),
              help="wide, yaml, json, name, jsonpath=TEMPLATE or custom-columns=NAME:EXPR,…")
@click.option("--sort-by", default=None, help="A JSONPath the list is ordered by, e.g. .metadata.name")
@click.option("--show-labels", is_flag=True, help="Add a LABELS column to the table.")
@click.option("-w", "--watch", is_flag=True, help="After listing, print every change.")
@click.option("--show-managed-fields", is_flag=True, help="Keep metadata.managedFields in -o json and -o yaml.")
def get(kind, name, namespace, all_namespaces, selector, field_selector, output, sort_by, show_labels,
        watch, show_managed_fields) -> None:
    """List objects of a kind (or one by name) as a table, YAML or JSON; `pods,deployments` for several."""
    kinds = [_kind(k) for k in (ALL if kind == "all" else kind).split(",")]
    if len(kinds) > 1 and (name or watch):
        raise click.UsageError("a name or --watch takes exactly one kind")
    tables = 0  # tables printed so far: a blank line goes between two
    with _client() as client:
        for info in kinds:
            ns = None if all_namespaces or not info.namespaced else (namespace or "default")
            # The watch starts before the list, so no change between the two is lost.
            changes = client.watch(info.kind, ns).wait_synced() if watch else None
            try:
                if name:
                    items = [client.get(info.kind, name, ns)]
                    rev = int(items[0]["metadata"]["resourceVersion"])
                else:
                    listed = client.list(info.kind, ns, selector, field_selector)
                    items, rev = listed.items, listed.rev
            except StatusError as exc:
                _fail(exc)
            if sort_by:
                items = _sorted(sort_by, items)
            if tables and items and output in (None, "wide"):
                click.echo()
            tables += bool(items)
            view = View(output, all_namespaces and info.namespaced, show_labels, show_managed_fields)
            _print(info.kind, items, view, header=len(kinds) == 1 or bool(items))
            if changes:
                _watch(changes, info.kind, name, selectors.parse(selector), view, rev)


@dataclass(frozen=True)
class View:
    """How `get` prints: the -o format, a NAMESPACE column (-A), a LABELS column (--show-labels), and
    managedFields in -o json|yaml (--show-managed-fields; kubectl leaves them out unless asked)."""

    output: str | None
    all_ns: bool = False
    labels: bool = False
    managed: bool = False

    def shown(self, obj: dict) -> dict:
        """As kubectl prints it: each `fieldsV1` its JSON object, managedFields dropped from -o json|yaml
        unless asked for."""
        if self.output in ("json", "yaml") and not self.managed and "managedFields" in obj.get("metadata", {}):
            return {**obj, "metadata": {k: v for k, v in obj["metadata"].items() if k != "managedFields"}}
        return raw.expanded(obj)


def _output(value: str | None) -> str | None:
    if value is None or value in OUTPUTS or value.startswith(("jsonpath=", "custom-columns=")):
        return value
    raise click.BadParameter(f"unable to match a printer suitable for the output format {value!r}, allowed "
                             f"formats are: {', '.join(OUTPUTS)}, jsonpath=…, custom-columns=…")


def _sorted(expr: str, items: list[dict]) -> list[dict]:
    try:
        return jsonpath.sort_by(expr, items)
    except jsonpath.TemplateError as exc:
        raise click.ClickException(str(exc)) from None


def _templated(output: str, items: list[dict]) -> str:
    """-o jsonpath (over the one object, or a List) and -o custom-columns."""
    form, _, template = output.partition("=")
    try:
        if form == "jsonpath":
            body = items[0] if len(items) == 1 else {"apiVersion": "v1", "kind": "List", "items": items}
            return jsonpath.render(template, body)
        return printers.table(jsonpath.custom_columns(template, items))
    except jsonpath.TemplateError as exc:
        raise click.ClickException(str(exc)) from None


def _print(kind: str, items: list[dict], view: View, header: bool = True) -> None:
    output = view.output
    items = [view.shown(obj) for obj in items] if output and output not in ("wide", "name") else items
    if output and "=" in output:
        click.echo(_templated(output, items), nl=not output.startswith("jsonpath="))  # as kubectl: no newline
    elif output == "json":
        body = items[0] if len(items) == 1 else {"apiVersion": "v1", "kind": "List", "items": items}
        click.echo(json.dumps(body, indent=2))
    elif output == "yaml":
        body = items[0] if len(items) == 1 else {"apiVersion": "v1", "kind": "List", "items": items}
        click.echo(yaml.safe_dump(body, sort_keys=False).rstrip())
    elif output == "name":
        for obj in items:
            click.echo(f"{kind.lower()}/{obj['metadata']['name']}")
    elif not items:
        if header:
            click.echo("No resources found.", err=True)
    else:
        wide = output == "wide"
        rows = ([printers.header(kind, wide, view.all_ns, view.labels)] if header else []) + \
            [printers.row(kind, obj, wide, view.all_ns, view.labels) for obj in items]
        click.echo(printers.table(rows))


def _watch(changes: Watch, kind: str, name: str | None, selector: selectors.Selector, view: View,
           listed_rev: int) -> None:
    """Print each change made after the list (revision `listed_rev`) that matches the name and selector."""
    try:
        for delta in changes:
            meta = delta.object["metadata"]
            if delta.rev <= listed_rev or (name and meta["name"] != name) or not selector.matches(meta.get("labels")):
                continue
            _print(kind, [delta.object], view, header=False)
    except KeyboardInterrupt:
        changes.close()


@main.command()
@click.argument("kind", required=False)
@click.argument("names", nargs=-1)
@click.option("-f", "--filename", "paths", multiple=True)
@click.option("-n", "--namespace", default=None)
@click.option("--grace-period", type=int, default=None)
@click.option("--cascade", type=click.Choice(["background", "foreground", "orphan"]), default="background")
def delete(kind, names, paths, namespace, grace_period, cascade) -> None:
    """Delete objects by kind and name, or those in manifests."""
    targets = [(kind, n, namespace) for n in names] if kind else []
    for path in paths:
        for doc in manifests.read(path):
            if doc.obj:
                meta = doc.obj.get("metadata") or {}
                targets.append((doc.obj.get("kind"), meta.get("name"), namespace or meta.get("namespace")))
    if not targets:
        raise click.UsageError("name the objects: KIND NAME... or -f FILE")
    failed = False
    with _client() as client:
        for k, n, ns in targets:
            info = _kind(k)
            try:
                client.delete(info.kind, n, ns, grace_period=grace_period, propagation=cascade.capitalize())
                click.echo(f'{info.kind.lower()} "{n}" deleted')
            except StatusError as exc:
                click.echo(f"error: {exc.message} ({exc.reason})", err=True)
                failed = True
    if failed:
        sys.exit(1)


@main.command()
@click.argument("kind")
@click.argument("name")
@click.option("-n", "--namespace", default=None)
def describe(kind, name, namespace) -> None:
    """Show an object's details and the Events about it."""
    info = _kind(kind)
    with connected() as client:
        click.echo(describe_text(client, info.kind, client.get(info.kind, name, namespace)))


@main.command()
@click.argument("name")
@click.option("-n", "--namespace", default=None)
@click.option("-c", "--container", default=None)
@click.option("-f", "--follow", is_flag=True, help="Keep printing new output until the container stops.")
@click.option("--tail", type=int, default=None, help="Only the last N lines.")
@click.option("-p", "--previous", is_flag=True, help="The previous, terminated instance of the container.")
@click.option("--limit-bytes", type=click.IntRange(min=1), default=None, help="At most this many bytes of output.")
def logs(name, namespace, container, follow, tail, previous, limit_bytes) -> None:
    """Print a container's output, served by the kubelet of the pod's node."""
    tail = None if tail is not None and tail < 0 else tail  # kubectl's -1: every line
    with connected() as client:
        try:
            chunk = client.logs(name, namespace, container, tail=tail, previous=previous, limit_bytes=limit_bytes)
            click.echo(chunk["text"], nl=False)
            while follow and chunk.get("running"):
                time.sleep(FOLLOW_POLL_S)
                chunk = client.logs(name, namespace, container, offset=chunk["offset"])
                click.echo(chunk["text"], nl=False)
        except KeyboardInterrupt:
            pass


@main.command()
@click.option("-f", "--filename", "path", default=None, help="Cluster file (default: config/cluster.yaml).")
def up(path: str | None) -> None:
    """Start every actor of a cluster file as its own process; Ctrl-C stops them all."""
    from cli.containers import prepare
    from cli.up import check_accounts
    from config.cluster import load_cluster
    from config.settings import load_settings
    from runtime.supervisor import run_cluster

    check_accounts(path)
    prepare(load_cluster(path), load_settings())
    sys.exit(run_cluster(path))


for command in (nodes.cordon, nodes.uncordon, nodes.drain, metadata.label, metadata.annotate, auth,
                dead_letters, create, run, set_group, patch, wait, events, api_resources, status, config_group,
                expose, rollout, scale, image):
    main.add_command(command)


@main.command()
@click.option("-f", "--filename", "path", default=None, help="Cluster file (default: config/cluster.yaml).")
@click.option("--users", "users_path", default=None, help="Users file (default: KUBUS_USERS_FILE).")
@click.option("--delete", is_flag=True, help="Delete the cluster's broker users instead.")
def bootstrap(path: str | None, users_path: str | None, delete: bool) -> None:
    """Create the cluster's broker users, permissions and shared names (idempotent), as KUBUS_ADMIN_URL."""
    from cli.bootstrap import bootstrap as run, remove_accounts
    from config.cluster import load_cluster
    from config.settings import load_settings
    from config.users import load_users

    settings = load_settings()
    if delete:
        click.echo("\n".join(f"deleted {user}" for user in remove_accounts(settings)) or "no users to delete")
        return
    users_file = users_path or settings.users_file
    rows = run(settings, load_cluster(path), load_users(users_file) if users_file else [])
    click.echo(printers.table([["BROKER USER", "KUBERNETES USER", "GROUPS"], *[list(r) for r in rows]]))
    from actors.gateway.tls import alt_names, ensure_certificates  # the cluster CA a gateway serves with

    ensure_certificates(settings.gateway_tls_dir, settings.cluster,
                        alt_names(settings.api_service_ip, settings.cluster_domain))


if __name__ == "__main__":
    main()
