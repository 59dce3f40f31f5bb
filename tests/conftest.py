"""Fixtures: a real broker (testcontainers where Docker answers, else KUBUS_AMQP_URL), a fresh
cluster name per test, and store/apiserver processes."""
from __future__ import annotations

import contextlib
import os
import uuid
from typing import Callable, Iterator

import pika
import pytest

from actors.kubelet import podnet
from actors.proxy import leftovers
from config.settings import Settings
from cli.bootstrap import bootstrap, remove_accounts
from bus.testkit import delete_topology
from testkit.hosts import kill_containers, remove_runtimes
from testkit.waiting import wait_until
from tests.helpers import Procs
from testkit.people import as_person, write_users_file

DEFAULT_URL = "amqp://guest:guest@127.0.0.1:5672/"


def _docker_answers() -> bool:
    try:
        import docker

        docker.from_env(timeout=2).ping()
        return True
    except Exception:
        return False


@pytest.fixture(scope="session")
def amqp_url():
    container = None
    if _docker_answers():
        from testcontainers.rabbitmq import RabbitMqContainer

        container = RabbitMqContainer("rabbitmq:3.13-management").start()
        url = (f"amqp://guest:guest@{container.get_container_host_ip()}:"
               f"{container.get_exposed_port(5672)}/")
    else:
        url = os.environ.get("KUBUS_AMQP_URL", DEFAULT_URL)
    try:
        pika.BlockingConnection(pika.URLParameters(url)).close()
    except Exception as exc:
        pytest.exit(f"no RabbitMQ at {url}: {exc}. Run `make broker` (or set KUBUS_AMQP_URL).", returncode=3)
    yield url
    if container is not None:
        container.stop()


@pytest.fixture
def cluster_name() -> str:
    return f"t{uuid.uuid4().hex[:10]}"


@pytest.fixture
def settings(amqp_url, cluster_name, tmp_path) -> Settings:
    """A bootstrapped cluster (its secret, shared names and accounts); the settings connect as
    `admin` (system:masters), a person of its users file; `admin_url` is the broker's administrator."""
    with cluster_settings(amqp_url, cluster_name, tmp_path) as found:
        yield found


@contextlib.contextmanager
def cluster_settings(amqp_url: str, cluster_name: str, tmp_path) -> Iterator[Settings]:
    """`settings` for fixtures of a wider scope (a module's one cluster)."""
    base = Settings(amqp_url=amqp_url, admin_url=amqp_url, cluster=cluster_name, data_dir=tmp_path / "data",
                    secrets_dir=tmp_path / "secrets", users_file=write_users_file(tmp_path / "users.yaml"),
                    request_timeout_s=10, bookmark_interval_s=0.5)
    bootstrap(base, None, [])
    try:
        yield as_person(base, "admin")
    finally:
        remove_accounts(base)
        delete_topology(base.admin_url, base.cluster)  # bootstrap declared the shared names


@pytest.fixture
def procs(settings, tmp_path, request):
    with running_procs(settings, tmp_path, lambda: any(
            getattr(getattr(request.node, f"rep_{when}", None), "failed", False) for when in ("setup", "call"))) \
            as found:
        yield found


@contextlib.contextmanager
def running_procs(settings: Settings, tmp_path, failed: Callable[[], bool]) -> Iterator[Procs]:
    """`procs` for fixtures of a wider scope: the logs printed at the end if `failed()` says so."""
    env = {**os.environ, "KUBUS_AMQP_URL": settings.amqp_url,  # `admin`; an actor runs as its own user
           "KUBUS_CLUSTER": settings.cluster, "KUBUS_ADMIN_URL": settings.admin_url,
           "KUBUS_SECRETS_DIR": str(settings.secrets_dir), "KUBUS_USERS_FILE": str(settings.users_file),
           "KUBUS_DATA_DIR": str(settings.data_dir), "KUBUS_BOOKMARK_INTERVAL_S": "0.5", "PYTHONUNBUFFERED": "1",
           "KUBUS_AUDIT_LOG": str(tmp_path / "audit.log")}
    logdir = tmp_path / "logs"
    logdir.mkdir()
    procs = Procs(env, logdir, settings)
    try:
        yield procs
    finally:
        _clean_up(procs, settings, failed)


def _clean_up(procs: Procs, settings: Settings, failed: Callable[[], bool]) -> None:
    procs.stop_all()
    remove_runtimes(settings.data_dir)
    kill_containers(settings.data_dir)
    podnet.clean(settings.cluster)  # pods' network namespaces and the cluster's bridge, where made
    if "actors.proxy" in procs.modules:  # the route is the host's: another test's proxy may be using it
        leftovers.clean(settings.cluster, settings.service_cidr)  # a killed proxy's route and nftables table
    if failed():
        print(procs.logs())
    delete_topology(settings.admin_url, settings.cluster)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, f"rep_{rep.when}", rep)


def wait_serving(client, timeout: float = 30.0) -> None:
    """Until a read goes through apiserver and store."""
    wait_until(lambda: client.list("Namespace").items, timeout, 0.2, what="the cluster to answer")


def control_plane(procs, settings):
    """Start a store and an apiserver as real processes; a client once they answer."""
    from runtime.client import Client

    procs.start("store")
    procs.start("actors.apiserver")
    client = Client(settings, name="test")
    wait_serving(client)
    return client


@pytest.fixture
def cluster(procs, settings):
    """A store and an apiserver as real processes, and a connected client."""
    client = control_plane(procs, settings)
    yield client
    client.close()

