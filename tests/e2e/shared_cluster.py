"""One cluster for a whole test module (its tests share it, so the module pays for one start): the
`settings` and `procs` fixtures of tests/conftest.py, made once a module from tmp_path_factory."""
from __future__ import annotations

import contextlib
import os

from cli.bootstrap import bootstrap, remove_accounts
from bus.testkit import delete_topology
from config.settings import Settings
from testkit.hosts import kill_containers, remove_runtimes
from testkit.people import as_person, write_users_file
from tests.helpers import Procs


@contextlib.contextmanager
def module_cluster(amqp_url: str, tmp_path):
    """(the admin's settings, the procs) of a fresh bootstrapped cluster until the block ends."""
    name = f"t{os.urandom(5).hex()}"
    base = Settings(amqp_url=amqp_url, admin_url=amqp_url, cluster=name, data_dir=tmp_path / "data",
                    secrets_dir=tmp_path / "secrets", users_file=write_users_file(tmp_path / "users.yaml"),
                    request_timeout_s=10, bookmark_interval_s=0.5)
    bootstrap(base, None, [])
    settings = as_person(base, "admin")
    env = {**os.environ, "KUBUS_AMQP_URL": settings.amqp_url, "KUBUS_CLUSTER": name,
           "KUBUS_ADMIN_URL": amqp_url, "KUBUS_SECRETS_DIR": str(settings.secrets_dir),
           "KUBUS_USERS_FILE": str(settings.users_file), "KUBUS_DATA_DIR": str(settings.data_dir),
           "KUBUS_BOOKMARK_INTERVAL_S": "0.5", "PYTHONUNBUFFERED": "1", "KUBUS_AUDIT_LOG": str(tmp_path / "audit.log")}
    (tmp_path / "logs").mkdir()
    procs = Procs(env, tmp_path / "logs", settings)
    try:
        yield settings, procs
    finally:
        procs.stop_all()
        remove_runtimes(settings.data_dir)
        kill_containers(settings.data_dir)
        remove_accounts(base)
        delete_topology(amqp_url, name)
