"""The people of a test cluster (its users file) and their broker accounts: `admin` in
system:masters is what the tests' clients connect as; the others are made on demand."""
from __future__ import annotations

from pathlib import Path

import yaml

from cli.bootstrap import Account, ensure_account
from config.credentials import url_as
from config.identities import broker_user_of
from config.settings import Settings

PEOPLE = {  # name -> groups
    "admin": ("system:masters",),
    "alice": ("team-a-devs",),
    "bob": (),
}


def password(name: str) -> str:
    return f"{name}-password-for-tests"


def write_users_file(path: Path) -> Path:
    path.write_text(yaml.safe_dump([{"name": n, "password": password(n), "groups": list(g)}
                                    for n, g in PEOPLE.items()]))
    return path


def as_person(admin: Settings, name: str) -> Settings:
    """Settings that connect as person `name` of the users file (its broker user made now)."""
    user = ensure_account(admin, b"", Account("user", name, password=password(name)))
    return admin.with_(amqp_url=url_as(admin.admin_url, user, password(name)))


def token_of(settings: Settings, person: str) -> str:
    """The gateway's bearer token of a person: their broker user and password."""
    return f"{broker_user_of(settings.cluster, 'user', person)}:{password(person)}"
