"""Who each actor process is on the broker, and its credentials: the cluster's secret (made by
`kubus bootstrap`, kept by the operator) derives every actor's password, so the supervisor and
the tests can hand each process its own URL without a password file."""
from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from urllib.parse import quote, urlparse, urlunparse

from config.identities import broker_user_of, password_for
from config.settings import Settings
from config.urls import each, first

SECRET_BYTES = 32


def ensure_secret(path: Path) -> bytes:
    """The cluster's secret, made on first use (readable by its owner only)."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(secrets.token_bytes(SECRET_BYTES))
    return path.read_bytes()


def read_secret(settings: Settings) -> bytes:
    try:
        return settings.secret_file.read_bytes()
    except FileNotFoundError:
        raise SystemExit(f"no cluster secret at {settings.secret_file}: run `kubus bootstrap` first") from None


AS_ITS_CALLERS = ("actors.gateway",)  # talks to the bus as each caller (a person's token): no user of its own


def role_of_actor(module: str, args: list[str] | tuple[str, ...]) -> tuple[str, str | None]:
    """The broker role (and name) an actor process runs as, from how it is started."""
    if module == "store":
        return "store", None
    if module == "actors.apiserver":
        return "apiserver", None
    if module == "actors.scheduler":
        return "scheduler", None
    if module in ("actors.dns", "actors.proxy", "actors.ingress"):
        return module.removeprefix("actors."), None
    if module == "actors.controllers":
        return "controller", args[0]
    if module == "actors.localpath":
        return "controller", "local-path-provisioner"  # a controller's broker user, its own ServiceAccount
    if module == "actors.metrics":
        return "controller", "metrics-server"  # answers the apiservers' metrics reads: permissions.py
    if module == "actors.kubelet":
        if "--hollow" in args:
            return "hollow", None
        if "--node-json" in args:
            return "node", json.loads(args[list(args).index("--node-json") + 1])["name"]
        return "node", args[list(args).index("--node") + 1]
    raise ValueError(f"no broker identity for the module {module!r}")


def url_as(amqp_url: str, user: str, password: str) -> str:
    """`amqp_url` (each of its nodes) with another user's credentials."""
    return each(amqp_url, lambda one: _one_as(one, user, password))


def _one_as(amqp_url: str, user: str, password: str, at: tuple[str, int] | None = None) -> str:
    url = urlparse(amqp_url)
    host, port = at or (url.hostname or "127.0.0.1", url.port)
    netloc = f"{quote(user, safe='')}:{quote(password, safe='')}@{host}" + (f":{port}" if port else "")
    return urlunparse(url._replace(netloc=netloc))


def url_for_pod(amqp_url: str, user: str, password: str, host: str, port: int) -> str:
    """A container's broker URL: the first node's (its scheme, vhost and options) as `user`, at the broker
    Service's `host:port` (the gateway's relay), since the broker's own loopback address is not the pod's."""
    return _one_as(first(amqp_url), user, password, (host, port))


def actor_url(settings: Settings, secret: bytes, role: str, name: str | None = None) -> str:
    user = broker_user_of(settings.cluster, role, name)
    return url_as(settings.amqp_url, user, password_for(secret, user))
