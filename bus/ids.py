"""Message and correlation ids.

A message id is a random 64-bit prefix per process and a counter: unique (the store dedupes by user
and id), and far cheaper than a uuid4 per message on the hot path. A correlation id must also be
unguessable (contract 2): whoever learns one caller's id — a kubelet answering a `logs` request —
must not be able to name the caller's next one, so each is 128 random bits (half a microsecond).
"""
from __future__ import annotations

import itertools
import secrets

_PREFIX = secrets.token_hex(8)
_COUNTER = itertools.count(1)


def new_id() -> str:
    return f"{_PREFIX}{next(_COUNTER):x}"


def unguessable_id() -> str:
    return secrets.token_hex(16)
