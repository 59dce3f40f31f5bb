"""Waiting on a condition instead of sleeping: the tests' and the benches' one waiter."""
from __future__ import annotations

import time
from typing import Any, Callable


def wait_until(condition: Callable[[], Any], timeout: float = 20.0, interval: float = 0.05, what: str = "") -> Any:
    """Poll `condition` until it returns something truthy; fail with `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            value = condition()
            if value:
                return value
        except Exception as exc:  # the condition may raise until it holds (e.g. NotFound)
            last_error = exc
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what or condition}"
                         + (f" (last error: {last_error})" if last_error else ""))
