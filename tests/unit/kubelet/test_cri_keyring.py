"""The pull-secret keyring as the kubelet's credentialprovider matches it (keyring.go URLsMatch, Lookup)."""
from __future__ import annotations

import base64
import json

import pytest

from actors.kubelet.cri import keyring


def secret(kind: str, config: dict) -> dict:
    key = keyring.KEYS.get(kind, ".dockerconfigjson")
    return {"type": kind, "data": {key: base64.b64encode(json.dumps(config).encode()).decode()}}


def auths(server: str, user: str = "u", password: str = "p") -> dict:
    return {"auths": {server: {"auth": base64.b64encode(f"{user}:{password}".encode()).decode()}}}


@pytest.mark.parametrize("glob, target, matched", [
    pytest.param("127.0.0.1:5001", "127.0.0.1:5001/private/busybox", True, id="host-and-port"),
    pytest.param("127.0.0.1:5001", "127.0.0.1:5002/private/busybox", False, id="another-port"),
    pytest.param("127.0.0.1", "127.0.0.1:5001/private/busybox", False, id="no-port-is-not-any-port"),
    pytest.param("*.example.com", "registry.example.com/app", True, id="glob-part"),
    pytest.param("*.example.com", "a.b.example.com/app", False, id="glob-part-count"),
    pytest.param("registry.example.com/team", "registry.example.com/team/app", True, id="path-prefix"),
    pytest.param("registry.example.com/team", "registry.example.com/other/app", False, id="other-path"),
])
def test_urls_match(glob, target, matched):
    assert keyring.urls_match(glob, target) is matched


def test_a_dockerconfigjson_secret_gives_its_login_for_its_registry():
    ring = keyring.from_secrets([secret(keyring.DOCKER_CONFIG_JSON, auths("http://127.0.0.1:5001", "puller", "pw"))])
    assert ring.lookup("127.0.0.1:5001/private/busybox") == [{"username": "puller", "password": "pw"}]
    assert ring.lookup("docker.io/library/busybox") == []


def test_a_dockercfg_secret_and_docker_hubs_v1_key():
    ring = keyring.from_secrets([secret(keyring.DOCKER_CFG, {"https://index.docker.io/v1/": {
        "username": "hub", "password": "pw"}})])
    assert ring.lookup("docker.io/library/busybox") == [{"username": "hub", "password": "pw"}]


def test_the_longest_key_is_tried_first_and_every_match_is_tried():
    ring = keyring.from_secrets([secret(keyring.DOCKER_CONFIG_JSON, auths("reg.io", "host")),
                                 secret(keyring.DOCKER_CONFIG_JSON, auths("reg.io/team", "team"))])
    assert [c["username"] for c in ring.lookup("reg.io/team/app")] == ["team", "host"]


@pytest.mark.parametrize("given", [
    pytest.param({"type": "Opaque", "data": {".dockerconfigjson": "e30="}}, id="another-type"),
    pytest.param({"type": keyring.DOCKER_CONFIG_JSON, "data": {".dockerconfigjson": "bm90IGpzb24="}}, id="not-json"),
    pytest.param({"type": keyring.DOCKER_CONFIG_JSON, "data": {}}, id="no-key"),
])
def test_secrets_that_are_no_docker_config_give_nothing(given):
    assert keyring.from_secrets([given]).creds == {}
