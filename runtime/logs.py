"""structlog set-up: JSON lines when not on a terminal, readable lines on one."""
from __future__ import annotations

import logging
import sys

import structlog


def configure(level: str = "info", stream=None) -> None:
    stream = stream or sys.stderr
    renderer = (structlog.dev.ConsoleRenderer(colors=stream.isatty()) if stream.isatty()
                else structlog.processors.JSONRenderer())
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.PrintLoggerFactory(stream),
        cache_logger_on_first_use=True,
    )
    _route_pika(stream)


EXPECTED_CLOSES = (404, 405)  # a passive declare of a missing queue; a lock another process holds
# pika's tracebacks for a node that refused or dropped a connection: the bus logs each once as
# `bus.connect_failed` or `bus.connection_lost` (with the node) and tries the next node
REPORTED_BY_THE_BUS = ("Socket failed to connect", "TCP Connection attempt failed", "AMQPConnector - reporting",
                       "AMQP connection workflow failed", "AMQPConnectionWorkflow - reporting",
                       "Full-stack connection workflow failed", "Self-initiated stack bring-up failed",
                       "_AsyncBaseTransport._consume() failed", "connection_lost:")


class _ExpectedCloses(logging.Filter):
    """The bus's side channels close on purpose (the lock is taken, the queue is absent), and a lost
    or refused connection is the bus's to report: pika's words about those add nothing."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = str(record.msg)
        if text.startswith(REPORTED_BY_THE_BUS):
            return False
        return not (text.startswith("Received remote Channel.Close")
                    and record.args and record.args[0] in EXPECTED_CLOSES)


def _route_pika(stream) -> None:
    """pika's own warnings and errors reach stderr (once, however often `configure` is called)."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_ExpectedCloses())
    pika_log = logging.getLogger("pika")
    for old in [h for h in pika_log.handlers if getattr(h, "kubus", False)]:
        pika_log.removeHandler(old)
    handler.kubus = True
    pika_log.addHandler(handler)
    pika_log.setLevel(logging.WARNING)
