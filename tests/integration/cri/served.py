"""A cri cluster that serves in-cluster clients: a service range of its own (the proxy's route is the
host's: two clusters on one host must not share a range), the proxy, and the gateway on it — for a test
(`serving`) or a module (`served_cri_cluster`)."""
from __future__ import annotations

import subprocess
import zlib
from contextlib import contextmanager

from tests.e2e.conftest import running_gateway
from tests.integration.cri.conftest import module_cri_cluster
from testkit.waiting import wait_until


def service_range(procs, settings) -> str:
    """Before the cluster starts, a service range of its own (its DNS address in it)."""
    second = 16 + zlib.crc32(settings.cluster.encode()) % 16
    cidr = f"172.{second}.0.0/16"
    procs.env.update(KUBUS_SERVICE_CIDR=cidr, KUBUS_CLUSTER_DNS=f"172.{second}.0.10")
    return cidr


@contextmanager
def serving(client, procs, settings, tmp_path, **env):
    """The proxy (the service range local to the host), then the gateway: (url, ca) once the default
    account and kube-root-ca.crt exist."""
    procs.start("actors.proxy", KUBUS_PROXY_MODE="nftables")
    cidr = procs.env["KUBUS_SERVICE_CIDR"]
    wait_until(lambda: subprocess.run(["ip", "route", "show", "table", "local", cidr], capture_output=True,
                                      text=True).stdout.strip(), 30, what="the service range local to the host")
    with running_gateway(procs, settings, tmp_path, **env) as (url, ca):
        wait_until(lambda: client.get("ServiceAccount", "default") and client.get("ConfigMap", "kube-root-ca.crt"),
                   30, what="the account and kube-root-ca.crt")
        yield url, ca


@contextmanager
def served_cri_cluster(amqp_url, tmp_path_factory, request, env: dict[str, str] | None = None,
                       actors=lambda procs: None, **gateway_env):
    """`cri_module`'s cluster with a service range of its own and `env` for its actors, `actors(procs)`
    started beside it, then the proxy and the gateway (with `gateway_env`): `.client`, `.settings` (as
    admin), `.procs`, `.tmp`, `.url`, `.ca`."""
    def before(procs, settings) -> None:
        service_range(procs, settings)
        procs.env.update(env or {})
    with module_cri_cluster(amqp_url, tmp_path_factory, request, before=before) as shared:
        actors(shared.procs)
        with serving(shared.client, shared.procs, shared.settings, shared.tmp, **gateway_env) as (shared.url,
                                                                                                  shared.ca):
            yield shared  # the proxy's route of the range goes with the cluster (tests/conftest.py `stop`)
