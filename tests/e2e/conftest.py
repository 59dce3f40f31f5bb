"""The gateway fixtures: a gateway process on a free port, and kubectl (or any client) with a
kubeconfig for a person's token, each with its own discovery cache."""
from __future__ import annotations

import contextlib
import os
import signal
import ssl
import subprocess
import urllib.request

import pytest
import yaml

from runtime import spawn
from runtime.spawn import ROOT
from testkit.waiting import wait_until
from tests.conftest import shared
from testkit.hosts import free_port

KUBECTL = os.environ.get("KUBUS_KUBECTL", "kubectl")


@pytest.fixture
def gateway(cluster, procs, settings, tmp_path, request):
    """A gateway process on a free port; (its URL, its CA file). Marked `shared_plane`: the plane's one."""
    if shared(request):
        yield request.getfixturevalue("plane_gateway")
        return
    with running_gateway(procs, settings, tmp_path) as found:
        yield found


@pytest.fixture(scope="module")
def plane_gateway(plane):
    """One gateway for a module's shared plane (tests/conftest.py `plane`)."""
    with running_gateway(plane.procs, plane.settings, plane.tmp) as found:
        yield found


@contextlib.contextmanager
def running_gateway(procs, settings, tmp_path, **env: str):
    """A gateway process (with extra `KUBUS_*` environment, if given) until the block ends."""
    port = free_port()
    ca = settings.secrets_dir / f"{settings.cluster}-gateway" / "ca.crt"
    env = {**procs.env, "KUBUS_GATEWAY_ADDRESS": f"127.0.0.1:{port}", **env}
    with open(tmp_path / "logs" / "gateway.log", "w") as log:
        proc = spawn.start("actors.gateway", cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env)
    url = f"https://127.0.0.1:{port}"
    try:
        wait_until(lambda: _answers(url, ca), 30, 0.1, what="the gateway to serve /version")
        yield url, ca
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(10)


def _answers(url: str, ca) -> bool:
    context = ssl.create_default_context(cafile=str(ca))
    with urllib.request.urlopen(f"{url}/version", context=context, timeout=2) as answer:
        return answer.status == 200


def kubeconfig_for(tmp_path, url: str, ca, token: str, namespace: str | None = None):
    """A kubeconfig file for the gateway at `url` with a person's token (and its context's namespace,
    if given); its path."""
    context = {"cluster": "kubus", "user": "me", **({"namespace": namespace} if namespace else {})}
    config = {"apiVersion": "v1", "kind": "Config", "current-context": "kubus",
              "clusters": [{"name": "kubus", "cluster": {"server": url, "certificate-authority": str(ca)}}],
              "users": [{"name": "me", "user": {"token": token}}],
              "contexts": [{"name": "kubus", "context": context}]}
    path = tmp_path / f"kubeconfig-{abs(hash(token))}"
    path.write_text(yaml.safe_dump(config))
    return path


def kubectl_for(tmp_path, url: str, ca, token: str, namespace: str | None = None):
    path = kubeconfig_for(tmp_path, url, ca, token, namespace)
    cache = tmp_path / f"kube-cache-{abs(hash(token))}"

    def argv(*args: str) -> list[str]:
        return [KUBECTL, f"--kubeconfig={path}", f"--cache-dir={cache}", *args]

    def kubectl(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(argv(*args), input=stdin, capture_output=True, text=True, timeout=90)
    kubectl.argv = argv
    return kubectl

