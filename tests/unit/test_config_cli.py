"""`kubus create configmap|secret`'s objects, as kubectl's generators build them, and describe's
lines (a Secret's sizes, never its values)."""
from __future__ import annotations

import base64
import json

import click
import pytest

from cli.describe_config import configmap_lines, secret_lines
from cli.verbs_config import Sources, configmap_manifest, docker_config

ENV_WITH_SPACE = "bad.env"  # written in the test's directory, read relative to it


def test_literals_files_directories_and_env_files_become_keys(tmp_path, monkeypatch):
    monkeypatch.setenv("FROM_ENV", "from the environment")
    (tmp_path / "app.conf").write_text("mode=fast\n")
    folder = tmp_path / "dir"
    folder.mkdir()
    (folder / "one").write_text("1")
    (folder / "bad name").write_text("skipped, as kubectl skips keys it cannot use")
    (folder / "blob").write_bytes(b"\xff\x00")
    (tmp_path / "vars.env").write_text("# a comment\n\nA=1\n  B= two\nFROM_ENV\n")
    cm = configmap_manifest("c", ("lit=x=y",), (str(tmp_path / "app.conf"), f"renamed={tmp_path / 'app.conf'}",
                                                  str(folder)))
    assert cm["data"] == {"lit": "x=y", "app.conf": "mode=fast\n", "renamed": "mode=fast\n", "one": "1"}
    assert configmap_manifest("e", env_files=(str(tmp_path / "vars.env"),))["data"] == {
        "A": "1", "B": " two", "FROM_ENV": "from the environment"}
    with pytest.raises(click.UsageError, match="from-env-file cannot be combined with from-file or from-literal"):
        configmap_manifest("x", ("a=1",), (), (str(tmp_path / "vars.env"),))
    assert cm["binaryData"] == {"blob": base64.b64encode(b"\xff\x00").decode()}


@pytest.mark.parametrize("add, message", [
    pytest.param(lambda s: s.literals(("a=1", "a=2")), 'cannot add key "a", another key by that name already exists '
                 'in Data for ConfigMap "c"', id="duplicate"),
    pytest.param(lambda s: s.literals(("novalue",)), "invalid literal source novalue, expected key=value",
                 id="literal-without-value"),
    pytest.param(lambda s: s.literals(("a b=1",)), '"a b" is not a valid key name for a ConfigMap: a valid config key '
                 "must consist of alphanumeric characters, '-', '_' or '.'", id="invalid-key"),
    pytest.param(lambda s: s.env_files((ENV_WITH_SPACE,)), '"B " is not a valid key name', id="env-key-with-space"),
    pytest.param(lambda s: s.files(("/nonexistent/file",)), "error reading /nonexistent/file", id="missing-file"),
])
def test_bad_sources_are_refused_with_a_sentence(add, message, tmp_path, monkeypatch):
    (tmp_path / "bad.env").write_text("B = 1\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(click.ClickException) as refused:
        add(Sources("ConfigMap", "c"))
    assert refused.value.message.startswith(message)


def test_docker_registry_config_is_kubectls():
    config = json.loads(docker_config("reg.example:5000", "u", "p", "u@example.com"))
    assert config == {"auths": {"reg.example:5000": {"username": "u", "password": "p", "email": "u@example.com",
                                                     "auth": base64.b64encode(b"u:p").decode()}}}


def test_describe_shows_a_secrets_sizes_never_its_values():
    secret = {"kind": "Secret", "type": "Opaque", "data": {"password": base64.b64encode(b"hunter2").decode()}}
    lines = secret_lines(secret)
    assert "password:  7 bytes" in lines and not any("hunter2" in line or "aHVudGVyMg" in line for line in lines)
    cm_lines = configmap_lines({"kind": "ConfigMap", "data": {"k": "v"}, "binaryData": {"b": "AAE="}})
    assert cm_lines[3:6] == ["k:", "----", "v"] and cm_lines[-1] == "b: 2 bytes"
