"""`kubus up -f` with a node the cluster file's last `kubus bootstrap` did not know: said once, with the
command that fixes it, before anything starts — not a kubelet retrying a refused login forever."""
from __future__ import annotations

import os
import signal
import subprocess
import sys

import yaml

from cli.bootstrap import bootstrap
from cli.up import refused_users
from config.cluster import load_cluster
from config.identities import broker_user_of
from runtime.spawn import ROOT

STORE = {"name": "store", "module": "store"}


def _cluster_file(tmp_path, nodes: list[str]):
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump({"actors": [STORE], "nodes": [{"name": node} for node in nodes]}))
    return path


def test_up_names_the_node_bootstrap_did_not_make_and_starts_nothing(settings, tmp_path):
    bootstrap(settings, load_cluster(_cluster_file(tmp_path, ["n1"])), [])
    path = _cluster_file(tmp_path, ["n1", "n9"])  # n9 added to the file since
    env = {**os.environ, "KUBUS_AMQP_URL": settings.amqp_url, "KUBUS_CLUSTER": settings.cluster,
           "KUBUS_DATA_DIR": str(settings.data_dir), "KUBUS_SECRETS_DIR": str(settings.secrets_dir)}
    up = subprocess.Popen([sys.executable, "-m", "cli.main", "up", "-f", str(path)], cwd=ROOT, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = up.communicate(timeout=60)
    finally:
        if up.poll() is None:  # before the fix: the kubelet of n9 retried its login forever
            up.send_signal(signal.SIGTERM)
            up.wait(30)
    assert up.returncode == 1, out + err
    assert "[kubus] started" not in out
    assert f"the broker refuses {broker_user_of(settings.cluster, 'node', 'n9')}:" in err, err
    assert f"Run `kubus bootstrap -f {path}` as the broker administrator" in err and err.count("refuses") == 1


def test_after_bootstrap_of_the_file_every_user_logs_in(settings, tmp_path):
    cluster = load_cluster(_cluster_file(tmp_path, ["n1", "n9"]))
    users = [broker_user_of(settings.cluster, "store", None)] + [broker_user_of(settings.cluster, "node", n)
                                                                 for n in ("n1", "n9")]
    assert refused_users(settings, cluster) == users  # the fixture's bootstrap knew no cluster file
    bootstrap(settings, cluster, [])
    assert refused_users(settings, cluster) == []
