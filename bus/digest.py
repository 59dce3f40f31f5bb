"""The order-free digest of a routing key's objects that bookmarks carry (contract 2)."""
from __future__ import annotations

from hashlib import blake2b


def object_digest(uid: str, resource_version: str | int) -> int:
    """BLAKE2b-64 of `uid:resourceVersion`, read as a big-endian unsigned integer."""
    return int.from_bytes(blake2b(f"{uid}:{resource_version}".encode(), digest_size=8).digest(), "big")


class KeyDigest:
    """Count and XOR-digest of the objects under one routing key, kept incrementally."""

    __slots__ = ("count", "digest")

    def __init__(self) -> None:
        self.count = 0
        self.digest = 0

    def add(self, uid: str, rv: str | int) -> None:
        self.count += 1
        self.digest ^= object_digest(uid, rv)

    def remove(self, uid: str, rv: str | int) -> None:
        self.count -= 1
        self.digest ^= object_digest(uid, rv)
