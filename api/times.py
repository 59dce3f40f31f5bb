"""Kubernetes timestamps: RFC 3339 in whole seconds (Time) or microseconds (MicroTime), UTC."""
from __future__ import annotations

import time
from datetime import datetime, timezone


_LAST: tuple[int, str] = (-1, "")  # the last second formatted: a store stamps thousands of writes in one


def rfc3339(t: float) -> str:
    global _LAST
    second, last = int(t // 1), _LAST
    if last[0] != second:
        last = _LAST = (second, datetime.fromtimestamp(second, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    return last[1]


def micro_time(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def now() -> str:
    return rfc3339(time.time())


def seconds(stamp: str | None) -> float:
    """Epoch seconds of a Time or MicroTime; 0 for none."""
    if not stamp:
        return 0.0
    fmt = "%Y-%m-%dT%H:%M:%S.%fZ" if "." in stamp else "%Y-%m-%dT%H:%M:%SZ"
    return datetime.strptime(stamp, fmt).replace(tzinfo=timezone.utc).timestamp()
