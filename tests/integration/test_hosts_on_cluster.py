"""Slow: `kubus up` with a cluster file that places actors on three hosts of a 3-node RabbitMQ
cluster — each actor's connection is on its host's broker node; then host a dies (its broker node
and its store, kill -9) and the replicated store on host b takes over, losing no acknowledged write."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from base64 import b64encode
from urllib.parse import urlparse

import pytest
import yaml

from config.cluster import load_cluster
from cli.bootstrap import bootstrap
from runtime.client import Client
from tests.conftest import wait_serving
from tests.e2e.test_supervisor import Output
from testkit.failover import REPLICATED
from tests.failover import ON_RABBIT_CLUSTER
from tests.fuzz_strategies import pod
from runtime.spawn import ROOT
from testkit.waiting import wait_until

pytestmark = ON_RABBIT_CLUSTER


@pytest.fixture
def amqp_url(cluster_url):
    return cluster_url


def cluster_file(tmp_path) -> dict:
    hosts = {h: {"broker": n, "env": {"KUBUS_DATA_DIR": str(tmp_path / h), **REPLICATED}}
             for n, h in enumerate(("a", "b", "c"), 1)}
    return {"hosts": hosts, "actors": [{"name": "store-a", "module": "store", "host": "a"},
                                       {"name": "store-b", "module": "store", "host": "b"},
                                       {"name": "apiserver", "module": "actors.apiserver", "host": "c"},
                                       {"name": "scheduler", "module": "actors.scheduler", "host": "b"}]}


def connections(admin_url: str) -> dict[str, set[str]]:
    """Each connection name's broker nodes, from the management API of the admin URL's first node."""
    url = urlparse(admin_url.split(",")[0])
    request = urllib.request.Request(f"http://{url.hostname}:{url.port + 10000}/api/connections", headers={
        "Authorization": "Basic " + b64encode(f"{url.username}:{url.password}".encode()).decode()})
    found: dict[str, set[str]] = {}
    for conn in json.load(urllib.request.urlopen(request, timeout=10)):
        name = (conn.get("client_properties") or {}).get("connection_name") or ""
        found.setdefault(name, set()).add(conn["node"].split("@")[0])
    return found


def test_actors_run_on_their_hosts_and_the_store_outlives_host_a(settings, tmp_path, rabbit_cluster):
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump(cluster_file(tmp_path)))
    bootstrap(settings, load_cluster(path), [])
    env = {**os.environ, "KUBUS_AMQP_URL": settings.amqp_url, "KUBUS_CLUSTER": settings.cluster,
           "KUBUS_SECRETS_DIR": str(settings.secrets_dir), "KUBUS_USERS_FILE": str(settings.users_file)}
    up = subprocess.Popen([sys.executable, "-m", "cli.main", "up", "-f", str(path)], cwd=ROOT, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    out = Output(up)
    client = Client(settings, name="e2e")
    try:
        wait_serving(client, 60)
        placed = {"store": "kubus1", "apiserver": "kubus3", "scheduler": "kubus2"}
        wait_until(lambda: all(node in connections(settings.admin_url).get(name, set())
                               for name, node in placed.items()), 30, what="each actor on its host's node")
        assert connections(settings.admin_url)["store"] == {"kubus1", "kubus2"}  # the standby on b
        acked = [client.create(pod(f"before-{i}"), namespace="default")["metadata"]["name"] for i in range(20)]
        rabbit_cluster("kill", "1")
        os.kill(out.pids("store-a")[-1], signal.SIGKILL)  # host a is gone: its node and its store
        acked += [wait_until(lambda n=i: _create(client, f"after-{n}"), 60, what="a write after host a died")
                  for i in range(20)]
        assert not {n for n in acked} - {p["metadata"]["name"] for p in client.list("Pod", "default").items}
        rabbit_cluster("start", "1")  # back for the teardown's accounts and names
    finally:
        client.close()
        os.killpg(up.pid, signal.SIGTERM)
        up.wait(30)


def _create(client, name: str) -> str | None:
    try:
        return client.create(pod(name), namespace="default")["metadata"]["name"]
    except Exception:  # noqa: BLE001 - the store is failing over: tried again
        return None
