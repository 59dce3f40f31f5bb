"""Kubernetes timestamps: RFC 3339 in whole seconds (Time) or microseconds (MicroTime), UTC."""
from __future__ import annotations

import time
from datetime import datetime, timezone


def rfc3339(t: float) -> str:
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


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
