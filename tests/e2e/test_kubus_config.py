"""`kubus create configmap|secret …`, `kubus get` and `kubus describe` of them, against a running cluster."""
from __future__ import annotations

import base64

from tests.e2e.test_cli import kubus


def test_create_get_and_describe_configmaps_and_secrets(cluster, procs, tmp_path):
    (tmp_path / "app.conf").write_text("mode=fast\n")
    made = kubus(procs, "create", "configmap", "app", "--from-literal=greeting=hello",
                 f"--from-file={tmp_path}/app.conf")
    assert made.stdout == "configmap/app created\n", made.stderr
    assert cluster.get("ConfigMap", "app", "default")["data"] == {"greeting": "hello", "app.conf": "mode=fast\n"}
    made = kubus(procs, "create", "secret", "generic", "db", "--from-literal=password=hunter2")
    assert made.stdout == "secret/db created\n", made.stderr
    assert base64.b64decode(cluster.get("Secret", "db", "default")["data"]["password"]) == b"hunter2"
    got = [line.split()[:3] for line in kubus(procs, "get", "secrets").stdout.splitlines()]
    assert got == [["NAME", "TYPE", "DATA"], ["db", "Opaque", "1"]]
    described = kubus(procs, "describe", "secret", "db").stdout
    assert "password:  7 bytes" in described and "hunter2" not in described
    refused = kubus(procs, "create", "secret", "tls", "web", "--cert=/nonexistent", "--key=/nonexistent")
    assert refused.returncode != 0 and "Traceback" not in refused.stderr and "/nonexistent" in refused.stderr
    duplicate = kubus(procs, "create", "cm", "x", "--from-literal=a=1", "--from-literal=a=2")
    assert duplicate.returncode == 1 and 'cannot add key "a", another key by that name already exists in Data for ' \
        'ConfigMap "x"' in duplicate.stderr
