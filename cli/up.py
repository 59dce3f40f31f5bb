"""`kubus up`'s look before it starts anything: every broker user the cluster file needs (each actor's,
each node's kubelet's) must log in. One that the last `kubus bootstrap` did not make — a node added to
the file since — is said once, with the command that makes it, instead of its actor retrying a refused
login forever with a warning in a log nobody reads."""
from __future__ import annotations

import asyncio
import os

import click

from bus.login import may_log_in
from cli.bootstrap import accounts_of
from config.cluster import ClusterFile, load_cluster
from config.credentials import read_secret, url_as
from config.identities import broker_user_of, password_for
from config.settings import Settings

LOGIN_TIMEOUT_S = 5.0


def refused_users(settings: Settings, cluster: ClusterFile) -> list[str]:
    """The cluster file's broker users the broker refuses (a broker that does not answer refuses
    nobody: the actors then wait for it, as they always have)."""
    secret = read_secret(settings)
    users = [broker_user_of(settings.cluster, account.role, account.name) for account in accounts_of(cluster, [])]

    async def logins() -> list:
        return await asyncio.gather(*(may_log_in(url_as(settings.amqp_url, user, password_for(secret, user)),
                                                 LOGIN_TIMEOUT_S, "kubus up") for user in users),
                                    return_exceptions=True)

    return [user for user, ok in zip(users, asyncio.run(logins())) if ok is False]


def check_accounts(path: str | None) -> None:
    """Stop before anything starts when a user of the cluster file is missing, saying how to make it."""
    cluster, settings = load_cluster(path), Settings()
    settings = settings.with_(cluster=os.environ.get("KUBUS_CLUSTER") or cluster.cluster or settings.cluster)
    refused = refused_users(settings, cluster)
    if refused:
        file = f" -f {path}" if path else ""
        raise click.ClickException(
            f"the broker refuses {', '.join(refused)}: the last `kubus bootstrap` of cluster {settings.cluster!r} "
            f"did not make them (nodes or actors added to the cluster file since?). Run `kubus bootstrap{file}` "
            f"as the broker administrator (KUBUS_ADMIN_URL), then `kubus up{file}` again")
