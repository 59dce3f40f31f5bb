"""`kubus status`: one screen of a cluster's health — its actors' connections (active or standby),
its queues (depth, consumers, rates), its dead letters, the store's revision and nodes. What the
broker knows comes from the management API as the broker administrator (`KUBUS_ADMIN_URL`: people
see no connections); what the cluster holds comes through an apiserver as you."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import click

from api.printers import columns as printers
from bus import admin
from bus.topology import Names
from config.identities import users_prefix
from config.settings import Settings
from runtime.memory import cluster_memory


@dataclass
class Broker:
    connections: list[dict]
    queues: list[dict]
    lock_holders: set[str]  # names of the connections that hold an actor's lock: the active instances


def broker_view(settings: Settings) -> Broker:
    """The cluster's connections (its broker users') and queues (its names)."""
    names, url = Names(settings.cluster), settings.admin_url
    users = users_prefix(settings.cluster)
    connections = [c for c in admin.get_json(url, "connections") if str(c.get("user", "")).startswith(users)]
    queues = [q for q in admin.get_json(url, f"queues/{admin.vhost_path(url)}")
              if q["name"].startswith(f"{names.cluster}.")]
    return Broker(connections, queues, _lock_holders(url, queues))


def _lock_holders(url: str, queues: list[dict]) -> set[str]:
    """Who owns each exclusive lock queue (only a queue's own page names its owner)."""
    holders = set()
    for q in queues:
        if q["name"].endswith(".lock") and q.get("exclusive"):
            page = admin.get_json(url, f"queues/{admin.vhost_path(url)}/{quote(q['name'], safe='')}")
            holders.add((page.get("owner_pid_details") or {}).get("name"))
    return holders


def _connection_name(conn: dict) -> str:
    return str((conn.get("client_properties") or {}).get("connection_name") or conn.get("name", ""))


def actors_table(view: Broker) -> list[list[str]]:
    """One row per connection: who, what, and whether it holds its actor's lock (active)."""
    rows = [["CONNECTION", "USER", "STATE", "CHANNELS", "ROLE"]]
    for conn in sorted(view.connections, key=_connection_name):
        role = "active" if conn.get("name") in view.lock_holders else "standby" if _is_singleton(conn) else ""
        rows.append([_connection_name(conn), str(conn.get("user", "")), str(conn.get("state", "")),
                     str(conn.get("channels", "")), role])
    return rows


def _is_singleton(conn: dict) -> bool:
    """The store, the scheduler and the controllers take a lock (their reply connections do not);
    apiservers, kubelets and clients do not."""
    name = _connection_name(conn)
    return name.startswith(("store", "scheduler", "controller")) and not name.endswith(" replies")


def queues_table(view: Broker) -> list[list[str]]:
    rows = [["QUEUE", "MESSAGES", "CONSUMERS", "IN/S", "OUT/S"]]
    for q in sorted(view.queues, key=lambda q: q["name"]):
        stats = q.get("message_stats") or {}
        rate = lambda key: f"{(stats.get(key) or {}).get('rate', 0.0):.1f}"  # noqa: E731
        rows.append([q["name"], str(q.get("messages", 0)), str(q.get("consumers", 0)),
                     rate("publish_details"), rate("deliver_get_details")])
    return rows


def cluster_lines(settings: Settings) -> list[str]:
    """Through an apiserver, as you: the store's revision and the nodes' readiness."""
    from cli.session import client

    with client() as kube:
        namespaces = kube.list("Namespace")
        nodes = kube.list("Node").items
    ready = sum(1 for n in nodes if _ready(n))
    db = Path(settings.data_dir) / f"{settings.cluster}.store.db"
    size = f"{db.stat().st_size / (1 << 20):.1f} MiB" if db.exists() else "not on this host"
    return [f"store revision {namespaces.rev}, database {size}",
            f"nodes {len(nodes)}: {ready} Ready, {len(nodes) - ready} NotReady"]


def memory_line(view: Broker, cluster: str) -> str:
    """The PSS of the cluster's actor processes on this host (those holding its actors' connections,
    and the warm parent they were forked from): shared pages counted once. People's and pods'
    connections are not the cluster's processes, but a gateway's (as its callers) are."""
    people = (f"{users_prefix(cluster)}user.", f"{users_prefix(cluster)}sa.")
    ports = {int(c["peer_port"]) for c in view.connections
             if c.get("peer_port") and _local(str(c.get("peer_host", "")), str(c.get("host", "")))
             and (not str(c.get("user", "")).startswith(people) or _connection_name(c).startswith("gateway "))}
    count, kib = cluster_memory(ports)
    return f"memory on this host: {count} processes, {kib / 1024:.0f} MB PSS"


def _local(peer: str, broker: str) -> bool:
    return peer.startswith("127.") or peer in ("::1", broker)


def _ready(node: dict) -> bool:
    return any(c.get("type") == "Ready" and c.get("status") == "True"
               for c in (node.get("status") or {}).get("conditions") or [])


@click.command()
def status() -> None:
    """One screen of the cluster's health (the broker's side as KUBUS_ADMIN_URL, the rest as you)."""
    settings = Settings()
    try:
        view = broker_view(settings)
    except admin.AdminError as exc:
        raise click.ClickException(f"the management API did not answer KUBUS_ADMIN_URL's user: {exc}") from None
    dead = next((q.get("messages", 0) for q in view.queues if q["name"] == Names(settings.cluster).dead_queue), 0)
    click.echo(f"cluster {settings.cluster}: {len(view.connections)} connections, {len(view.queues)} queues, "
               f"{dead} dead letters" + ("  (kubus dead-letters shows them)" if dead else ""))
    for line in cluster_lines(settings):
        click.echo(line)
    click.echo(memory_line(view, settings.cluster))
    click.echo("\n" + printers.table(actors_table(view)))
    click.echo("\n" + printers.table(queues_table(view)))
