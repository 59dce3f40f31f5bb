"""A projected volume's files: keys as files, items at their paths, modes, optional, binaryData,
downward API formats, projected sources together, and the kubelet's FailedMount messages."""
from __future__ import annotations

import base64

import pytest

from actors.kubelet.fieldpath import PodFacts
from actors.kubelet.volumes.payload import MountError, payload_of

B64 = lambda data: base64.b64encode(data).decode()  # noqa: E731
OBJECTS = {("ConfigMap", "app"): {"data": {"a.conf": "x=1", "b": "two"}, "binaryData": {"bin": B64(b"\x00\x01")}},
           ("Secret", "db"): {"data": {"password": B64(b"s3cr3t")}}, ("ConfigMap", "gone"): None,
           ("Secret", "gone"): None}
POD = {"metadata": {"name": "web", "namespace": "prod", "uid": "u", "labels": {"b": "2", "a": "1"}},
       "spec": {"containers": [{"name": "c", "resources": {"limits": {"memory": "64Mi"}}}]}}


def files(volume: dict) -> dict:
    return payload_of({"name": "v", **volume}, POD, OBJECTS, PodFacts(allocatable={"cpu": "2"}))


@pytest.mark.parametrize("volume, expected", [
    pytest.param({"configMap": {"name": "app"}},
                 {"a.conf": (b"x=1", 0o644), "b": (b"two", 0o644), "bin": (b"\x00\x01", 0o644)}, id="every-key"),
    pytest.param({"configMap": {"name": "app", "defaultMode": 0o600, "items": [
        {"key": "a.conf", "path": "etc/app.conf"}, {"key": "b", "path": "b", "mode": 0o400}]}},
        {"etc/app.conf": (b"x=1", 0o600), "b": (b"two", 0o400)}, id="items-and-modes"),
    pytest.param({"secret": {"secretName": "db", "defaultMode": 0o400}}, {"password": (b"s3cr3t", 0o400)},
                 id="secret-decoded"),
    pytest.param({"secret": {"secretName": "gone", "optional": True}}, {}, id="optional-missing-is-empty"),
    pytest.param({"configMap": {"name": "app", "optional": True, "items": [{"key": "nope", "path": "n"}]}}, {},
                 id="optional-missing-key"),
    pytest.param({"downwardAPI": {"items": [{"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}},
                                            {"path": "name", "fieldRef": {"fieldPath": "metadata.name"}},
                                            {"path": "mem", "resourceFieldRef": {"containerName": "c",
                                             "resource": "limits.memory", "divisor": "1Mi"}}]}},
                 {"labels": (b'a="1"\nb="2"', 0o644), "name": (b"web", 0o644), "mem": (b"64", 0o644)},
                 id="downward"),
    pytest.param({"projected": {"defaultMode": 0o440, "sources": [
        {"configMap": {"name": "app", "items": [{"key": "b", "path": "cm/b"}]}},
        {"secret": {"name": "db"}},
        {"downwardAPI": {"items": [{"path": "ns", "fieldRef": {"fieldPath": "metadata.namespace"}}]}}]}},
        {"cm/b": (b"two", 0o440), "password": (b"s3cr3t", 0o440), "ns": (b"prod", 0o440)}, id="projected"),
    pytest.param({"emptyDir": {}}, None, id="not-projecting"),
])
def test_payload(volume, expected):
    assert files(volume) == expected


@pytest.mark.parametrize("volume, message", [
    pytest.param({"configMap": {"name": "gone"}}, 'configmap "gone" not found', id="configmap"),
    pytest.param({"secret": {"secretName": "gone"}}, 'secret "gone" not found', id="secret"),
    pytest.param({"configMap": {"name": "app", "items": [{"key": "nope", "path": "n"}]}},
                 "configmap references non-existent config key: nope", id="configmap-key"),
    pytest.param({"projected": {"sources": [{"secret": {"name": "db", "items": [{"key": "k", "path": "k"}]}}]}},
                 "secret references non-existent secret key: k", id="projected-secret-key"),
])
def test_failed_mount_messages(volume, message):
    with pytest.raises(MountError) as caught:
        files(volume)
    assert str(caught.value) == f'MountVolume.SetUp failed for volume "v" : {message}'


def test_the_kube_api_access_volume_holds_the_token_the_ca_and_the_namespace():
    from actors.apiserver.admission.serviceaccount import token_volume  # noqa: PLC0415 (the admission's own)
    objects = {("ConfigMap", "kube-root-ca.crt"): {"data": {"ca.crt": "PEM"}}}
    volume = token_volume("kube-api-access-x2b4c")
    got = payload_of(volume, POD, objects, PodFacts(token="eyJ.a.b"))
    assert got == {"token": (b"eyJ.a.b", 0o644), "ca.crt": (b"PEM", 0o644), "namespace": (b"prod", 0o644)}
    with pytest.raises(MountError, match='volume "kube-api-access-x2b4c" : failed to fetch token'):
        payload_of(volume, POD, objects, PodFacts())
