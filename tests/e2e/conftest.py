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
from testkit.hosts import free_port

KUBECTL = os.environ.get("KUBUS_KUBECTL", "kubectl")


@pytest.fixture
def gateway(cluster, procs, settings, tmp_path):
    """A gateway process on a free port; (its URL, its CA file)."""
    with running_gateway(procs, settings, tmp_path) as found:
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


def kubeconfig_for(tmp_path, url: str, ca, token: str):
    """A kubeconfig file for the gateway at `url` with a person's token; its path."""
    config = {"apiVersion": "v1", "kind": "Config", "current-context": "kubus",
              "clusters": [{"name": "kubus", "cluster": {"server": url, "certificate-authority": str(ca)}}],
              "users": [{"name": "me", "user": {"token": token}}],
              "contexts": [{"name": "kubus", "context": {"cluster": "kubus", "user": "me"}}]}
    path = tmp_path / f"kubeconfig-{abs(hash(token))}"
    path.write_text(yaml.safe_dump(config))
    return path


def kubectl_for(tmp_path, url: str, ca, token: str):
    path = kubeconfig_for(tmp_path, url, ca, token)
    cache = tmp_path / f"kube-cache-{abs(hash(token))}"

    def argv(*args: str) -> list[str]:
        return [KUBECTL, f"--kubeconfig={path}", f"--cache-dir={cache}", *args]

    def kubectl(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(argv(*args), input=stdin, capture_output=True, text=True, timeout=90)
    kubectl.argv = argv
    return kubectl

