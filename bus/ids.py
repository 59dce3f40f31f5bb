"""Message and correlation ids: a random 64-bit prefix per process and a counter. Unique (the
store dedupes by user and id), and far cheaper than a uuid4 per message on the hot path."""
from __future__ import annotations

import itertools
import secrets

_PREFIX = secrets.token_hex(8)
_COUNTER = itertools.count(1)


def new_id() -> str:
    return f"{_PREFIX}{next(_COUNTER):x}"
