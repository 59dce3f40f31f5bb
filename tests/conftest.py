"""Fixtures: a real broker (testcontainers where Docker answers, else KUBUS_AMQP_URL), a fresh
cluster name per test, and store/apiserver processes."""
from __future__ import annotations

import contextlib
import os
import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Callable, Iterator

import pika
import pytest

from actors.kubelet import podnet
from actors.proxy import leftovers
from config.settings import Settings
from cli.bootstrap import bootstrap, remove_accounts
from bus.testkit import delete_topology
from testkit.hosts import kill_containers, remove_runtimes, unmount_all
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
def settings(amqp_url, cluster_name, tmp_path, request) -> Settings:
    """A bootstrapped cluster (its secret, shared names and accounts); the settings connect as
    `admin` (system:masters), a person of its users file; `admin_url` is the broker's administrator.
    A test marked `shared_plane` gets its module's plane's settings instead (see `plane`)."""
    if shared(request):
        yield request.getfixturevalue("plane").settings
        return
    base = bootstrapped(amqp_url, cluster_name, tmp_path)
    yield as_person(base, "admin")
    unbootstrap(base)


def bootstrapped(amqp_url: str, cluster: str, tmp_path) -> Settings:
    base = Settings(amqp_url=amqp_url, admin_url=amqp_url, cluster=cluster, data_dir=tmp_path / "data",
                    secrets_dir=tmp_path / "secrets", users_file=write_users_file(tmp_path / "users.yaml"),
                    request_timeout_s=10, bookmark_interval_s=0.5)
    bootstrap(base, None, [])
    return base


def unbootstrap(base: Settings) -> None:
    remove_accounts(base)
    delete_topology(base.admin_url, base.cluster)  # bootstrap declared the shared names


@contextlib.contextmanager
def cluster_settings(amqp_url: str, cluster_name: str, tmp_path) -> Iterator[Settings]:
    """`settings` for fixtures of a wider scope (a module's one cluster)."""
    base = bootstrapped(amqp_url, cluster_name, tmp_path)
    try:
        yield as_person(base, "admin")
    finally:
        unbootstrap(base)


@pytest.fixture
def procs(settings, tmp_path, request):
    if shared(request):  # the plane's: stopped with the plane (a shared test starts no actor of its own)
        yield request.getfixturevalue("plane").procs
        return
    procs = procs_of(settings, tmp_path)
    yield procs
    stop(procs, settings, failed(request.node))


def procs_of(settings: Settings, tmp_path) -> Procs:
    """The actor processes of one cluster (none started yet), their logs under tmp_path/logs."""
    env = {**os.environ, "KUBUS_AMQP_URL": settings.amqp_url,  # `admin`; an actor runs as its own user
           "KUBUS_CLUSTER": settings.cluster, "KUBUS_ADMIN_URL": settings.admin_url,
           "KUBUS_SECRETS_DIR": str(settings.secrets_dir), "KUBUS_USERS_FILE": str(settings.users_file),
           "KUBUS_DATA_DIR": str(settings.data_dir), "KUBUS_BOOKMARK_INTERVAL_S": "0.5", "PYTHONUNBUFFERED": "1",
           "KUBUS_AUDIT_LOG": str(tmp_path / "audit.log")}
    logdir = tmp_path / "logs"
    logdir.mkdir()
    return Procs(env, logdir, settings)


@contextlib.contextmanager
def running_procs(settings: Settings, tmp_path, failed: Callable[[], bool]) -> Iterator[Procs]:
    """`procs` for fixtures of a wider scope: the logs printed at the session's end if `failed()` says so."""
    procs = procs_of(settings, tmp_path)
    try:
        yield procs
    finally:
        stop(procs, settings, failed(), later=True)


@contextlib.contextmanager
def module_cluster(amqp_url: str, tmp_path_factory, request, folder: str) -> Iterator[tuple[Settings, Procs, Path]]:
    """A cluster of a module's own: its settings (admin), its `procs` (none started yet) and its folder;
    stopped and removed after the module, its actors' logs printed at the session's end if a test of
    the module failed."""
    tmp = tmp_path_factory.mktemp(folder)
    failures = request.session.testsfailed
    with cluster_settings(amqp_url, f"t{uuid.uuid4().hex[:10]}", tmp) as settings, \
            running_procs(settings, tmp, lambda: request.session.testsfailed > failures) as procs:
        yield settings, procs, tmp


FAILED_LOGS: list[str] = []  # the logs of wider fixtures' clusters that saw a failure, for the session's end


def stop(procs: Procs, settings: Settings, failed: bool, later: bool = False) -> None:
    """Stop a cluster's processes and undo what they may have left on the host and the broker. The logs
    of a cluster that saw a failure are printed — with the test's own output, or, `later` (a module's
    cluster: pytest shows no teardown output of a test that passed), at the session's end."""
    procs.stop_all()
    remove_runtimes(settings.data_dir)
    kill_containers(settings.data_dir)
    unmount_all(settings.data_dir)  # after the containers: nothing holds the mounts any more
    podnet.clean(settings.cluster)  # pods' network namespaces and the cluster's bridge, where made
    if "actors.proxy" in procs.modules:  # a killed proxy's route and nftables table: the route of the range its
        # cluster was given (a cri cluster's own), never the default one another test's proxy may be using
        leftovers.clean(settings.cluster, procs.env.get("KUBUS_SERVICE_CIDR", settings.service_cidr))
    if failed and later:
        FAILED_LOGS.append(f"==== cluster {settings.cluster} ({', '.join(sorted(procs.modules))})\n{procs.logs()}")
    elif failed:
        print(procs.logs())
    delete_topology(settings.admin_url, settings.cluster)


def pytest_terminal_summary(terminalreporter) -> None:
    for logs in FAILED_LOGS:
        terminalreporter.write_line(logs)


def failed(node) -> bool:
    return any(getattr(getattr(node, f"rep_{when}", None), "failed", False) for when in ("setup", "call"))


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
def cluster(procs, settings, request):
    """A store and an apiserver as real processes, and a connected client. Marked `shared_plane`: the
    module's plane's client, whose requests that name no namespace go to the test's own (`namespace`)."""
    if shared(request):
        yield request.getfixturevalue("plane").client.in_namespace(request.getfixturevalue("namespace"))
        return
    client = control_plane(procs, settings)
    yield client
    client.close()


# ---- one control plane for a read-mostly module ------------------------------------------------
def shared(request) -> bool:
    return request.node.get_closest_marker("shared_plane") is not None


@pytest.fixture(scope="module")
def plane(amqp_url, tmp_path_factory, request):
    """One control plane for the tests of a module marked `shared_plane` (store, apiserver and the
    namespace controller, started once a module instead of once a test): `.settings` (admin),
    `.procs`, `.client` and `.tmp`. Each test works in a namespace of its own (`namespace`), deleted
    after it with all it holds, and names any cluster-scoped object it makes after that namespace;
    a test that starts or kills actors, or changes what every namespace sees, keeps a cluster of its own.
    A module's `PLANE_ACTORS` (tuples of `procs.start` arguments) are started on its plane after those;
    its `PLANE_ENV` is added to every actor's environment."""
    with module_cluster(amqp_url, tmp_path_factory, request, "plane") as (settings, procs, tmp):
        procs.env.update(getattr(request.module, "PLANE_ENV", {}))
        client = control_plane(procs, settings)
        procs.start("actors.controllers", "namespace", label="namespace-controller")
        for args in getattr(request.module, "PLANE_ACTORS", ()):  # what else the module's tests need running
            procs.start(*args, label="-".join(a.rsplit(".", 1)[-1] for a in args[:2]))
        yield SimpleNamespace(settings=settings, procs=procs, client=client, tmp=tmp)
        client.close()


@pytest.fixture
def namespace(plane) -> str:
    """A namespace of this test's own on its module's plane; deleted after the test (the namespace
    controller empties it), so what one test made no other test sees."""
    name = f"t-{uuid.uuid4().hex[:8]}"
    plane.client.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    yield name
    plane.client.delete("Namespace", name)
