"""Message and correlation ids.

A message id is a random 64-bit prefix per process and a counter: unique (the store dedupes by user
and id), and far cheaper than a uuid4 per message on the hot path. A correlation id must also be
unguessable (contract 2): whoever learns one caller's id — a kubelet answering a `logs` request —
must not be able to name the caller's next one, so each is 128 random bits (half a microsecond).
"""
from __future__ import annotations

import itertools
import os
import secrets

_PREFIX = secrets.token_hex(8)
_COUNTER = itertools.count(1)


def _new_prefix() -> None:
    """A forked process (an actor from the warm parent) is a new sender: its own prefix, or two
    apiservers of one broker user would send the store the same ids and be deduped into one."""
    global _PREFIX, _COUNTER
    _PREFIX, _COUNTER = secrets.token_hex(8), itertools.count(1)


os.register_at_fork(after_in_child=_new_prefix)


def new_id() -> str:
    return f"{_PREFIX}{next(_COUNTER):x}"


def unguessable_id() -> str:
    return secrets.token_hex(16)
