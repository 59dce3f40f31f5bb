"""Encryption at rest of the kinds the EncryptionConfiguration names (`config/encryption.py`): a
value is `k8s:enc:aesgcm:v1:<key name>:` + a 12-byte nonce + AES-GCM's ciphertext and tag, as
Kubernetes' aesgcm provider writes it to etcd, with the row's place (`Secret/ns/name`) as the
authenticated data, so a value copied to another row does not open. Reads pick the key by its name
(old keys keep reading after a rotation); a value without the prefix is read as it is."""
from __future__ import annotations

import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from api.registry import KINDS
from config.encryption import EncryptionConfig

PREFIX = b"k8s:enc:aesgcm:v1:"
NONCE_BYTES = 12


class SealError(Exception):
    """A stored value that cannot be opened: an unknown key, or a value that was tampered with."""


class Sealer:
    def __init__(self, config: EncryptionConfig):
        plural = {info.plural: kind for kind, info in KINDS.items() if not info.group}
        self.kinds = frozenset(plural[r] for r in config.resources if r in plural)
        self.keys = {name: AESGCM(secret) for name, secret in config.keys}
        self.writer = None if config.write_clear or not config.keys else config.keys[0][0]

    def covers(self, kind: str) -> bool:
        return kind in self.kinds

    def seal(self, plain: bytes, place: str) -> bytes:
        if self.writer is None:
            return plain
        nonce = os.urandom(NONCE_BYTES)
        return PREFIX + self.writer.encode() + b":" + nonce + self.keys[self.writer].encrypt(nonce, plain,
                                                                                            place.encode())

    def open(self, value: bytes, place: str) -> bytes:
        return open_value(self.keys, value, place)


def sealed(value: bytes) -> bool:
    return value[:len(PREFIX)] == PREFIX


def open_value(keys: dict[str, AESGCM], value: bytes, place: str) -> bytes:
    if not sealed(value):
        return value
    name, sep, rest = value[len(PREFIX):].partition(b":")
    key = keys.get(name.decode(errors="replace"))
    if not sep or key is None:
        raise SealError(f"{place} is encrypted with the key {name.decode(errors='replace')!r}, which the "
                        f"encryption configuration does not hold")
    try:
        return key.decrypt(rest[:NONCE_BYTES], rest[NONCE_BYTES:], place.encode())
    except InvalidTag:
        raise SealError(f"{place} does not decrypt with its key {name.decode()!r}: it was altered or moved") from None
