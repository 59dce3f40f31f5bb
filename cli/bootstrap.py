"""`kubus bootstrap`: the cluster's identities and shared names on the broker (contract 5), made
idempotently as the broker administrator: the secret, the shared exchanges and queues, one
broker user per actor of the cluster file and per person of the users file, each with its
least-privilege permissions."""
from __future__ import annotations

from dataclasses import dataclass

from bus import accounts
from bus.declare import Bounds
from bus.permissions import permissions
from bus.shared import declare_shared
from bus.topology import Names
from config.cluster import ClusterFile
from config.credentials import AS_ITS_CALLERS, actor_url, ensure_secret, read_secret, role_of_actor
from config.identities import broker_user_of, identity_of, password_for, role_of, users_prefix
from config.settings import Settings
from config.users import UserEntry, people


@dataclass(frozen=True)
class Account:
    role: str
    name: str | None
    nodes: tuple[str, ...] = ()
    password: str | None = None  # a person's own; an actor's is derived from the secret


def accounts_of(cluster: ClusterFile | None, users: list[UserEntry]) -> list[Account]:
    """Every actor of the cluster file (each node's kubelet included) and every person."""
    wanted: dict[tuple[str, str | None], Account] = {}
    for actor in cluster.actors if cluster else ():
        if actor.module in AS_ITS_CALLERS:
            continue
        role, name = role_of_actor(actor.module, actor.args)
        wanted[(role, name)] = Account(role, name)
    for node in cluster.nodes if cluster else ():
        wanted[("node", node.name)] = Account("node", node.name)
    for user in users:
        wanted[("user", user.name)] = Account("user", user.name, password=user.secret)
    return list(wanted.values())


def bootstrap(settings: Settings, cluster: ClusterFile | None, users: list[UserEntry]) -> list[tuple[str, str, str]]:
    """(broker user, Kubernetes user, groups) of every account made or brought up to date."""
    secret = ensure_secret(settings.secret_file)
    declare_shared(settings.admin_url, Names(settings.cluster), Bounds.of(settings))
    rows = []
    for account in accounts_of(cluster, users):
        user = ensure_account(settings, secret, account)
        name, groups = identity_of(settings.cluster, user, people(users)) or ("?", ())
        rows.append((user, name, ",".join(groups)))
    return rows


def ensure_account(settings: Settings, secret: bytes, account: Account) -> str:
    """Create or update one broker user and its permissions; its name."""
    user = broker_user_of(settings.cluster, account.role, account.name)
    password = account.password or password_for(secret, user)
    accounts.ensure_user(settings.admin_url, user, password)
    accounts.apply(settings.admin_url, user, permissions(Names(settings.cluster), account.role, account.name,
                                                         account.nodes))
    return user


def actor_account_url(settings: Settings, module: str, args) -> str:
    """The URL an actor process (`python -m module args`) connects with, its account made or updated
    now: how the tests and the benchmarks start actors of a cluster they bootstrapped."""
    role, name = role_of_actor(module, args)
    secret = read_secret(settings)
    ensure_account(settings, secret, Account(role, name))
    return actor_url(settings, secret, role, name)


def remove_accounts(settings: Settings) -> list[str]:
    """Delete every broker user of this cluster (`kubus bootstrap --delete`, test teardown)."""
    gone = []
    for user in accounts.users_with_prefix(settings.admin_url, users_prefix(settings.cluster)):
        if role_of(settings.cluster, user) is not None and accounts.delete_user(settings.admin_url, user):
            gone.append(user)
    return gone
