"""`kubus config view|write`: a kubeconfig for a person of the users file, so kubectl and the client
libraries reach the cluster through a gateway (`https://<gateway address>`, the cluster's CA, and a
bearer token that is the person's broker credential `<broker user>:<password>`)."""
from __future__ import annotations

import base64
import os
from pathlib import Path

import click
import yaml

from config.identities import broker_user_of
from config.settings import Settings
from config.users import load_users


def ca_file(settings: Settings) -> Path:
    return settings.gateway_tls_dir / "ca.crt"


def kubeconfig(settings: Settings, user: str, password: str) -> dict:
    name = settings.cluster
    ca = ca_file(settings)
    if not ca.exists():
        raise click.ClickException(f"no cluster CA at {ca}: run `kubus bootstrap` (or start a gateway) first")
    token = f"{broker_user_of(name, 'user', user)}:{password}"
    return {"apiVersion": "v1", "kind": "Config", "current-context": name, "preferences": {},
            "clusters": [{"name": name, "cluster": {"server": f"https://{settings.gateway_address}",
                                                    "certificate-authority-data":
                                                        base64.b64encode(ca.read_bytes()).decode()}}],
            "users": [{"name": f"{name}-{user}", "user": {"token": token}}],
            "contexts": [{"name": name, "context": {"cluster": name, "user": f"{name}-{user}"}}]}


def _for(user: str) -> tuple[Settings, str]:
    settings = Settings()
    if settings.users_file is None:
        raise click.ClickException("KUBUS_USERS_FILE names no users file")
    people = {u.name: u for u in load_users(settings.users_file)}
    if user not in people:
        raise click.ClickException(f"no user {user!r} in {settings.users_file}")
    return settings, people[user].secret


@click.group("config")
def config_group() -> None:
    """Kubeconfigs for kubectl and the Kubernetes client libraries (through a gateway)."""


@config_group.command()
@click.option("--user", default="admin", show_default=True, help="A person of the users file.")
def view(user: str) -> None:
    """Print the kubeconfig of USER."""
    settings, password = _for(user)
    click.echo(yaml.safe_dump(kubeconfig(settings, user, password), sort_keys=False).rstrip())


@config_group.command()
@click.option("--user", default="admin", show_default=True, help="A person of the users file.")
@click.option("-f", "--file", "path", default=".kubus/kubeconfig", show_default=True)
def write(user: str, path: str) -> None:
    """Write the kubeconfig of USER (readable by you only): `KUBECONFIG=<file> kubectl get pods`."""
    settings, password = _for(user)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(yaml.safe_dump(kubeconfig(settings, user, password), sort_keys=False))
    click.echo(f"wrote {target}: KUBECONFIG={target} kubectl get pods")
