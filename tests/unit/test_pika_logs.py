"""pika's own log lines: a refused or dropped connection is the bus's to report (once, with the
node), so pika's tracebacks about it are dropped; its other warnings still reach stderr."""
from __future__ import annotations

import io
import logging

from runtime import logs


def test_connection_failures_are_left_to_the_bus():
    out = io.StringIO()
    logs._route_pika(out)
    logging.getLogger("pika.adapters.utils.connection_workflow").error(
        "TCP Connection attempt failed: %r; dest=%r", "refused", ("127.0.0.1", 5701))
    logging.getLogger("pika.adapters.base_connection").error("connection_lost: %r", "reset")
    logging.getLogger("pika.channel").warning("Received remote Channel.Close (%s): %r", 406, "PRECONDITION_FAILED")
    assert out.getvalue().count("\n") == 1 and "406" in out.getvalue()
