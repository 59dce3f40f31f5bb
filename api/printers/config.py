"""kubectl's columns of ConfigMaps and Secrets (`printConfigMap`, `printSecret`): how many keys, never a value;
of webhook configurations (`printMutatingWebhook`, `printValidatingWebhook`): how many webhooks."""
from __future__ import annotations

from api.printers.workloads import Row, age


def _configmap(cm: dict, wide: bool) -> list[str]:
    count = len(cm.get("data") or {}) + len(cm.get("binaryData") or {})
    return [cm["metadata"]["name"], str(count), age(cm["metadata"].get("creationTimestamp"))]


def _secret(secret: dict, wide: bool) -> list[str]:
    return [secret["metadata"]["name"], secret.get("type") or "", str(len(secret.get("data") or {})),
            age(secret["metadata"].get("creationTimestamp"))]


def _webhooks(config: dict, wide: bool) -> list[str]:
    return [config["metadata"]["name"], str(len(config.get("webhooks") or ())),
            age(config["metadata"].get("creationTimestamp"))]


COLUMNS: dict[str, tuple[list[str], list[str], Row]] = {
    "ConfigMap": (["NAME", "DATA", "AGE"], [], _configmap),
    "Secret": (["NAME", "TYPE", "DATA", "AGE"], [], _secret),
    "MutatingWebhookConfiguration": (["NAME", "WEBHOOKS", "AGE"], [], _webhooks),
    "ValidatingWebhookConfiguration": (["NAME", "WEBHOOKS", "AGE"], [], _webhooks),
}
