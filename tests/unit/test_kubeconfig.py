"""`kubus config view`'s kubeconfig: the gateway's address, the cluster's CA, the person's token."""
from __future__ import annotations

import base64

from cli.kubeconfig import ca_file, kubeconfig
from config.settings import Settings


def test_a_kubeconfig_names_the_gateway_the_ca_and_the_persons_broker_credential(tmp_path):
    settings = Settings(cluster="demo", secrets_dir=tmp_path, gateway_address="127.0.0.1:16443")
    ca_file(settings).parent.mkdir(parents=True)
    ca_file(settings).write_bytes(b"-----BEGIN CERTIFICATE-----\n")
    config = kubeconfig(settings, "alice", "s3cret-password")
    cluster = config["clusters"][0]["cluster"]
    assert cluster["server"] == "https://127.0.0.1:16443"
    assert base64.b64decode(cluster["certificate-authority-data"]) == b"-----BEGIN CERTIFICATE-----\n"
    assert config["users"][0]["user"] == {"token": "demo.user.alice:s3cret-password"}
    assert config["contexts"][0]["context"] == {"cluster": "demo", "user": "demo-alice"}
    assert config["current-context"] == "demo"
