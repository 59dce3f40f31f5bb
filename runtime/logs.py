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
    logging.getLogger("pika").setLevel(logging.CRITICAL)
