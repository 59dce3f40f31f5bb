"""A container's environment: envFrom, env's valueFrom (ConfigMaps, Secrets, the downward API,
resources with divisors), `$(VAR)` expansion, and Kubernetes' CreateContainerConfigError messages."""
from __future__ import annotations

import base64

import pytest

from actors.kubelet.envfrom import ConfigError, container_env
from actors.kubelet.fieldpath import PodFacts, format_map

B64 = lambda text: base64.b64encode(text.encode()).decode()  # noqa: E731
OBJECTS = {("ConfigMap", "app"): {"data": {"MODE": "fast", "1BAD": "x", "BAD=KEY": "y", "level": "3"}},
           ("Secret", "db"): {"data": {"password": B64("s3cr3t"), "user": B64("admin")}},
           ("ConfigMap", "gone"): None, ("Secret", "gone"): None}
FACTS = PodFacts(pod_ips=("10.1.0.5",), host_ips=("192.168.1.2",), allocatable={"cpu": "4", "memory": "8Gi"})


def pod(container: dict) -> dict:
    return {"metadata": {"name": "web", "namespace": "prod", "uid": "u-1", "labels": {"app": "web", "tier": "x"},
                         "annotations": {"note": "hi \"there\""}},
            "spec": {"nodeName": "node-1", "serviceAccountName": "builder", "containers": [{"name": "c", **container}]}}


def env_of(container: dict, base: dict | None = None) -> dict:
    return container_env(pod(container), pod(container)["spec"]["containers"][0], OBJECTS, FACTS, base or {})


def ref(kind: str, name: str, key: str, optional: bool = False) -> dict:
    return {"valueFrom": {kind: {"name": name, "key": key, **({"optional": True} if optional else {})}}}


def field(path: str) -> dict:
    return {"valueFrom": {"fieldRef": {"fieldPath": path}}}


def resource(name: str, divisor: str | None = None, **more) -> dict:
    return {"valueFrom": {"resourceFieldRef": {"resource": name, **({"divisor": divisor} if divisor else {}), **more}}}


@pytest.mark.parametrize("var, value", [
    pytest.param(ref("configMapKeyRef", "app", "MODE"), "fast", id="configmap-key"),
    pytest.param(ref("secretKeyRef", "db", "password"), "s3cr3t", id="secret-key-decoded"),
    pytest.param(field("metadata.name"), "web", id="name"),
    pytest.param(field("metadata.namespace"), "prod", id="namespace"),
    pytest.param(field("metadata.uid"), "u-1", id="uid"),
    pytest.param(field("metadata.labels['app']"), "web", id="label"),
    pytest.param(field("metadata.annotations['note']"), 'hi "there"', id="annotation"),
    pytest.param(field("metadata.labels['none']"), "", id="label-missing"),
    pytest.param(field("spec.nodeName"), "node-1", id="node"),
    pytest.param(field("spec.serviceAccountName"), "builder", id="account"),
    pytest.param(field("status.podIP"), "10.1.0.5", id="pod-ip"),
    pytest.param(field("status.podIPs"), "10.1.0.5", id="pod-ips"),
    pytest.param(field("status.hostIP"), "192.168.1.2", id="host-ip"),
    pytest.param(field("status.hostIPs"), "192.168.1.2", id="host-ips"),
    pytest.param(resource("limits.cpu"), "4", id="cpu-limit-from-allocatable"),
    pytest.param(resource("limits.cpu", "1m"), "4000", id="cpu-limit-millis"),
    pytest.param(resource("limits.memory", "1Mi"), "8192", id="memory-limit-allocatable-Mi"),
])
def test_a_variable_from_a_source(var, value):
    assert env_of({"env": [{"name": "X", **var}]})["X"] == value


@pytest.mark.parametrize("resources, var, value", [
    pytest.param({"requests": {"cpu": "250m"}}, resource("requests.cpu", "1m"), "250", id="cpu-request-m"),
    pytest.param({"requests": {"cpu": "250m"}}, resource("requests.cpu"), "1", id="cpu-rounds-up"),
    pytest.param({"limits": {"memory": "100Mi"}}, resource("limits.memory", "1Mi"), "100", id="memory-Mi"),
    pytest.param({"limits": {"memory": "1G"}}, resource("limits.memory", "1Mi"), "954", id="memory-ceil"),
    pytest.param({"limits": {"memory": "64Mi"}}, resource("limits.memory"), "67108864", id="memory-bytes"),
])
def test_a_resource_with_its_divisor(resources, var, value):
    assert env_of({"resources": resources, "env": [{"name": "X", **var}]})["X"] == value


@pytest.mark.parametrize("container, expected", [
    pytest.param({"envFrom": [{"configMapRef": {"name": "app"}}]}, {"MODE": "fast", "level": "3", "1BAD": "x"},
                 id="invalid-names-skipped"),
    pytest.param({"envFrom": [{"configMapRef": {"name": "app"}, "prefix": "APP_"}]},
                 {"APP_MODE": "fast", "APP_level": "3", "APP_1BAD": "x"}, id="prefix"),
    pytest.param({"envFrom": [{"secretRef": {"name": "db"}}, {"configMapRef": {"name": "app"}, "prefix": "user"}]},
                 {"password": "s3cr3t", "user": "admin", "userMODE": "fast", "userlevel": "3", "user1BAD": "x"},
                 id="secret-and-configmap"),
    pytest.param({"envFrom": [{"configMapRef": {"name": "gone", "optional": True}}]}, {}, id="optional-missing"),
    pytest.param({"envFrom": [{"configMapRef": {"name": "app"}}], "env": [{"name": "MODE", "value": "slow"}]},
                 {"MODE": "slow", "level": "3", "1BAD": "x"}, id="env-wins"),
    pytest.param({"env": [{"name": "A", "value": "a"}, {"name": "B", "value": "$(A)-$(S)-$$(A)-$(LATER)"},
                          {"name": "LATER", "value": "z"}]},
                 {"A": "a", "B": "a-svc-$(A)-$(LATER)", "LATER": "z"}, id="expansion-sees-earlier-only"),
    pytest.param({"env": [ref("configMapKeyRef", "app", "nope", optional=True) | {"name": "X"},
                          ref("secretKeyRef", "gone", "k", optional=True) | {"name": "Y"}]}, {},
                 id="optional-refs-set-nothing"),
])
def test_envfrom_and_order(container, expected):
    assert env_of(container, {"S": "svc"}) == {"S": "svc", **expected}


@pytest.mark.parametrize("var, message", [
    pytest.param(ref("configMapKeyRef", "gone", "k"), 'configmap "gone" not found', id="configmap-missing"),
    pytest.param(ref("secretKeyRef", "gone", "k"), 'secret "gone" not found', id="secret-missing"),
    pytest.param(ref("configMapKeyRef", "app", "DB_PORT"), "couldn't find key DB_PORT in ConfigMap prod/app",
                 id="configmap-key-missing"),
    pytest.param(ref("secretKeyRef", "db", "token"), "couldn't find key token in Secret prod/db",
                 id="secret-key-missing"),
])
def test_missing_is_a_config_error_with_kubernetes_message(var, message):
    with pytest.raises(ConfigError) as caught:
        env_of({"env": [{"name": "X", **var}]})
    assert str(caught.value) == message


def test_envfrom_missing_object_not_optional():
    with pytest.raises(ConfigError, match='^secret "gone" not found$'):
        env_of({"envFrom": [{"secretRef": {"name": "gone"}}]})


def test_format_map_sorts_and_quotes():
    assert format_map({"b": 'say "hi"', "a": "1"}) == 'a="1"\nb="say \\"hi\\""'
