"""Encryption at rest, configured as Kubernetes' EncryptionConfiguration
(`apiserver.config.k8s.io/v1`): which resources are encrypted and by which providers, in order.
The first provider writes; every provider reads, so a key is rotated by putting a new one first
and keeping the old below it until everything was rewritten. kubus knows `aesgcm` and `identity`
(a clear value, written before encryption was on, is always readable).
The file lives beside the cluster's secret and is made on first use with one fresh key (owner-only)."""
from __future__ import annotations

import base64
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

import yaml

KEY_BYTES = 32  # AES-256
DEFAULT_RESOURCES = ("secrets",)


@dataclass(frozen=True)
class EncryptionConfig:
    resources: tuple[str, ...]  # plural resource names ("secrets")
    keys: tuple[tuple[str, bytes], ...]  # the aesgcm keys, the writing one first
    write_clear: bool = False  # `identity` is the first provider: writes stay clear, the keys only read


def fresh(name: str = "key1") -> dict:
    """A new EncryptionConfiguration document with one random AES-GCM key."""
    key = base64.b64encode(secrets.token_bytes(KEY_BYTES)).decode()
    return {"apiVersion": "apiserver.config.k8s.io/v1", "kind": "EncryptionConfiguration",
            "resources": [{"resources": list(DEFAULT_RESOURCES),
                           "providers": [{"aesgcm": {"keys": [{"name": name, "secret": key}]}}, {"identity": {}}]}]}


def ensure(path: Path) -> EncryptionConfig:
    """The configuration at `path`, written first (mode 0600) when there is none."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another store process made it meanwhile
            return load(path)
        with os.fdopen(fd, "w") as out:
            yaml.safe_dump(fresh(), out, sort_keys=False)
    return load(path)


def load(path: Path) -> EncryptionConfig:
    try:
        return parse(yaml.safe_load(path.read_text()))
    except (OSError, yaml.YAMLError) as exc:
        raise ValueError(f"cannot read the encryption configuration {path}: {exc}") from None


def parse(doc) -> EncryptionConfig:
    """ValueError with a sentence when the document is not a configuration kubus can follow."""
    if not isinstance(doc, dict) or doc.get("kind") != "EncryptionConfiguration":
        raise ValueError("the encryption configuration must be a document of kind EncryptionConfiguration")
    entries = doc.get("resources") or []
    if len(entries) != 1 or not isinstance(entries[0], dict):
        raise ValueError("the encryption configuration must have exactly one entry under `resources`")
    entry = entries[0]
    resources = tuple(str(r) for r in entry.get("resources") or ())
    providers = entry.get("providers") or [{"identity": {}}]
    keys: list[tuple[str, bytes]] = []
    for provider in providers:
        if not isinstance(provider, dict) or not ({"identity", "aesgcm"} & set(provider)):
            raise ValueError(f"the encryption provider {provider!r} is not one kubus knows (aesgcm, identity)")
        keys += [_key(k) for k in ((provider.get("aesgcm") or {}).get("keys") or [])]
    return EncryptionConfig(resources, tuple(keys), write_clear="identity" in providers[0])


def _key(item: dict) -> tuple[str, bytes]:
    name = str(item.get("name") or "")
    if not name or ":" in name:
        raise ValueError(f"an aesgcm key needs a name without ':' (got {name!r})")
    try:
        secret = base64.b64decode(str(item.get("secret") or ""), validate=True)
    except ValueError:
        raise ValueError(f"the aesgcm key {name!r} is not base64") from None
    if len(secret) not in (16, 24, 32):
        raise ValueError(f"the aesgcm key {name!r} must be 16, 24 or 32 bytes (got {len(secret)})")
    return name, secret
