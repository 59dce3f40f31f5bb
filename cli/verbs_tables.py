"""`kubus events` and `kubus api-resources`: kubectl's tables of Events and of the kinds served."""
from __future__ import annotations

import click

from api.printers.columns import table
from api.printers.workloads import age
from api.registry import KINDS, KindInfo
from cli.describe import event_order
from cli.session import connected
from cli.verbs_patch import targets


def last_seen(event: dict, now=None) -> str:
    """kubectl events' LAST SEEN: the age, and for a repeated event `2m (x3 over 10m)`."""
    first = age(event.get("eventTime") or event.get("firstTimestamp"), now)
    if (event.get("count") or 0) > 1:
        return f"{age(event.get('lastTimestamp'), now)} (x{event['count']} over {first})"
    return first


def event_rows(items: list[dict], all_ns: bool, now=None) -> list[list[str]]:
    """kubectl events' table, oldest first; OBJECT reads `Kind/name`."""
    rows = [(["NAMESPACE"] if all_ns else []) + ["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]]
    for e in sorted(items, key=event_order):
        obj = e.get("involvedObject") or {}
        rows.append(([e["metadata"].get("namespace", "")] if all_ns else []) +
                    [last_seen(e, now), e.get("type") or "", e.get("reason") or "",
                     f"{obj.get('kind', '')}/{obj.get('name', '')}", (e.get("message") or "").strip()])
    return rows


@click.command("events")
@click.option("-n", "--namespace", default=None)
@click.option("-A", "--all-namespaces", "all_ns", is_flag=True)
@click.option("--for", "for_", default=None, help="Only the events about KIND/NAME.")
@click.option("--types", default=None, help="Only events of these types: Warning,Normal")
def events(namespace: str | None, all_ns: bool, for_: str | None, types: str | None) -> None:
    """List Events, oldest first: `kubus events -n shop`, `kubus events -A`."""
    ns = None if all_ns else (namespace or "default")
    about = targets((for_,))[0] if for_ else None
    with connected() as client:
        items = client.list("Event", ns, field_selector=f"involvedObject.name={about[1]}" if about else None).items
    wanted = {t.lower() for t in types.split(",")} if types else None
    items = [e for e in items if (not about or (e.get("involvedObject") or {}).get("kind") == about[0].kind)
             and (wanted is None or (e.get("type") or "").lower() in wanted)]
    if not items:
        click.echo("No events found." if all_ns else f"No events found in {ns} namespace.", err=True)
        return
    click.echo(table(event_rows(items, all_ns)))


def resource_rows(namespaced: bool | None = None, group: str | None = None) -> list[KindInfo]:
    """The kinds kubus serves, by API group then name, as kubectl api-resources sorts them."""
    return [info for info in sorted(KINDS.values(), key=lambda i: (i.group, i.plural))
            if (namespaced is None or info.namespaced == namespaced) and (group is None or info.group == group)]


@click.command("api-resources")
@click.option("--namespaced", type=bool, default=None, help="true or false: only those kinds.")
@click.option("--api-group", default=None, help="Only this group ('' for the core group).")
@click.option("-o", "--output", type=click.Choice(["name"]), default=None)
@click.option("--no-headers", is_flag=True)
def api_resources(namespaced: bool | None, api_group: str | None, output: str | None, no_headers: bool) -> None:
    """List the kinds the cluster serves: NAME, SHORTNAMES, APIVERSION, NAMESPACED, KIND."""
    infos = resource_rows(namespaced, api_group)
    if output == "name":
        click.echo("\n".join(info.resource for info in infos))
        return
    rows = [] if no_headers else [["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]]
    rows += [[i.plural, ",".join(i.short_names), i.api_version, str(i.namespaced).lower(), i.kind] for i in infos]
    click.echo(table(rows))
