"""ConfigMap and Secret admission: Kubernetes' messages, exactly (k8s-config-workloads.md §1)."""
from __future__ import annotations

import base64

import pytest

from api.admission import admit
from api.config import sizes
from api.printers.columns import header, row
from api.status import StatusError
from api.updates import update_causes

KEY_RULE = ("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or "
            "'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')")
MIB = 1024 * 1024


def b64(text: str | bytes) -> str:
    return base64.b64encode(text.encode() if isinstance(text, str) else text).decode()


def refusal(kind: str, body: dict) -> StatusError:
    with pytest.raises(StatusError) as caught:
        admit(kind, {"metadata": {"name": "x"}, **body}, "default")
    return caught.value


@pytest.mark.parametrize("kind, body, message", [
    pytest.param("ConfigMap", {"data": {"a b": "1"}}, f'ConfigMap "x" is invalid: data[a b]: Invalid value: "a b": '
                 f'{KEY_RULE}', id="key-rule"),
    pytest.param("ConfigMap", {"data": {".": "1"}}, 'ConfigMap "x" is invalid: data[.]: Invalid value: ".": '
                 "must not be '.'", id="key-dot"),
    pytest.param("ConfigMap", {"binaryData": {"..": b64("1")}}, 'ConfigMap "x" is invalid: binaryData[..]: Invalid '
                 "value: \"..\": must not be '..'", id="key-dotdot"),
    pytest.param("Secret", {"data": {"..a": b64("1")}}, 'Secret "x" is invalid: data[..a]: Invalid value: "..a": '
                 "must not start with '..'", id="key-dotdot-prefix"),
    pytest.param("ConfigMap", {"data": {"k" * 254: "1"}}, f'ConfigMap "x" is invalid: data[{"k" * 254}]: Invalid '
                 f'value: "{"k" * 254}": must be no more than 253 characters', id="key-too-long"),
    pytest.param("ConfigMap", {"data": {"a": "1"}, "binaryData": {"a": b64("1")}}, 'ConfigMap "x" is invalid: '
                 '[data[a]: Invalid value: "a": duplicate of key present in binaryData, binaryData[a]: Invalid value: '
                 '"a": duplicate of key present in data]', id="key-in-both"),
    pytest.param("ConfigMap", {"data": {"a": "x" * MIB, "b": "y"}}, 'ConfigMap "x" is invalid: []: Too long: may not '
                 'be more than 1048576 bytes', id="configmap-over-1mib"),
    pytest.param("Secret", {"stringData": {"a": "x" * MIB, "b": "y"}}, 'Secret "x" is invalid: data: Too long: may '
                 'not be more than 1048576 bytes', id="secret-over-1mib"),
    pytest.param("Secret", {"type": "kubernetes.io/tls"}, 'Secret "x" is invalid: [data[tls.crt]: Required value, '
                 'data[tls.key]: Required value]', id="tls-keys"),
    pytest.param("Secret", {"type": "kubernetes.io/basic-auth"}, 'Secret "x" is invalid: [data[username]: Required '
                 'value, data[password]: Required value]', id="basic-auth-keys"),
    pytest.param("Secret", {"type": "kubernetes.io/ssh-auth", "data": {"ssh-privatekey": ""}}, 'Secret "x" is '
                 'invalid: data[ssh-privatekey]: Required value', id="ssh-auth-empty-key"),
    pytest.param("Secret", {"type": "kubernetes.io/dockerconfigjson"}, 'Secret "x" is invalid: '
                 'data[.dockerconfigjson]: Required value', id="dockerconfigjson-key"),
    pytest.param("Secret", {"type": "kubernetes.io/dockercfg", "stringData": {".dockercfg": "{"}}, 'Secret "x" is '
                 'invalid: data[.dockercfg]: Invalid value: "<secret contents redacted>": unexpected end of JSON input',
                 id="dockercfg-cut-json"),
    pytest.param("Secret", {"type": "kubernetes.io/dockerconfigjson", "stringData": {".dockerconfigjson": "[1]"}},
                 'Secret "x" is invalid: data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: '
                 'cannot unmarshal array into Go value of type map[string]interface {}', id="dockerconfigjson-array"),
    pytest.param("Secret", {"type": "kubernetes.io/service-account-token"}, 'Secret "x" is invalid: '
                 'metadata.annotations[kubernetes.io/service-account.name]: Required value', id="sa-token-annotation"),
    pytest.param("Secret", {"data": {"a": "no!"}}, 'Secret in version "v1" cannot be handled as a Secret: illegal '
                 'base64 data at input byte 2', id="secret-bad-base64"),
    pytest.param("ConfigMap", {"binaryData": {"a": "abc"}}, 'ConfigMap in version "v1" cannot be handled as a '
                 'ConfigMap: illegal base64 data at input byte 0', id="binarydata-bad-padding"),
])
def test_refused_with_kubernetes_words(kind, body, message):
    assert refusal(kind, body).message == message


@pytest.mark.parametrize("kind, body", [
    pytest.param("ConfigMap", {"data": {"a": "x" * (MIB - 1), "b": "y"}}, id="configmap-exactly-1mib"),
    pytest.param("Secret", {"type": "kubernetes.io/basic-auth", "stringData": {"password": ""}}, id="basic-auth-one"),
    pytest.param("Secret", {"type": "kubernetes.io/tls", "data": {"tls.crt": "", "tls.key": ""}}, id="tls-not-parsed"),
    pytest.param("Secret", {"type": "bootstrap.kubernetes.io/token"}, id="another-type"),
    pytest.param("Secret", {"type": "kubernetes.io/dockerconfigjson", "stringData": {".dockerconfigjson": "{}"}},
                 id="dockerconfigjson"),
])
def test_admitted(kind, body):
    assert admit(kind, {"metadata": {"name": "x"}, **body}, "default")["kind"] == kind


def test_string_data_is_merged_into_data_wins_and_is_never_kept():
    secret = admit("Secret", {"metadata": {"name": "s"}, "data": {"a": b64("old"), "b": b64("kept")},
                              "stringData": {"a": "new"}}, "default")
    assert secret["data"] == {"a": b64("new"), "b": b64("kept")}
    assert "stringData" not in secret and secret["type"] == "Opaque"


def immutable(kind: str, **fields) -> dict:
    return {"kind": kind, "metadata": {"name": "x"}, "immutable": True, **fields}


@pytest.mark.parametrize("kind, old, new, causes", [
    pytest.param("ConfigMap", immutable("ConfigMap", data={"a": "1"}), immutable("ConfigMap", data={"a": "2"}),
                 ["data: Forbidden: field is immutable when `immutable` is set"], id="configmap-data"),
    pytest.param("ConfigMap", immutable("ConfigMap"), {**immutable("ConfigMap"), "immutable": False},
                 ["immutable: Forbidden: field is immutable when `immutable` is set"], id="configmap-unset"),
    pytest.param("ConfigMap", immutable("ConfigMap"), immutable("ConfigMap", binaryData={"a": b64("1")}),
                 ["binaryData: Forbidden: field is immutable when `immutable` is set"], id="configmap-binary"),
    pytest.param("ConfigMap", immutable("ConfigMap", data={"a": "1"}),
                 {**immutable("ConfigMap", data={"a": "1"}), "metadata": {"name": "x", "labels": {"l": "v"}}}, [],
                 id="configmap-metadata-stays-mutable"),
    pytest.param("Secret", immutable("Secret", data={"a": b64("1")}), immutable("Secret", data={}),
                 ["data: Forbidden: field is immutable when `immutable` is set"], id="secret-data"),
    pytest.param("Secret", {"type": "Opaque"}, {"type": "kubernetes.io/tls"},
                 ['type: Invalid value: "kubernetes.io/tls": field is immutable'], id="secret-type"),
    pytest.param("Secret", {"data": {"a": b64("1")}}, {"data": {"a": b64("2")}, "immutable": True}, [],
                 id="secret-made-immutable"),
])
def test_update_rules(kind, old, new, causes):
    assert [f"{c.field}: {c.message}" for c in update_causes(kind, old, new)] == causes


def test_columns_and_sizes_never_show_values():
    secret = admit("Secret", {"metadata": {"name": "s"}, "type": "kubernetes.io/tls",
                              "stringData": {"tls.crt": "abc", "tls.key": "de"}}, "default")
    cm = admit("ConfigMap", {"metadata": {"name": "c"}, "data": {"a": "é"}, "binaryData": {"b": b64(b"\0")}}, "default")
    assert (header("Secret", False, False), row("Secret", secret, False, False)[:3]) == (
        ["NAME", "TYPE", "DATA", "AGE"], ["s", "kubernetes.io/tls", "2"])
    assert (header("ConfigMap", False, False), row("ConfigMap", cm, False, False)[:2]) == (["NAME", "DATA", "AGE"],
                                                                                          ["c", "2"])
    assert sizes(secret) == {"tls.crt": 3, "tls.key": 2} and sizes(cm) == {"a": 2, "b": 1}
