"""A tiny client of RabbitMQ's management HTTP API, for what AMQP cannot ask: a queue's bindings.

The API listens on the AMQP host (`config.urls.management_base`) and takes the same credentials; of
several nodes, the first is asked.
Calls block for at most `TIMEOUT_S`: run them off the ioloop thread.
"""
from __future__ import annotations

import base64
import json
import urllib.request
from typing import NamedTuple
from urllib.parse import ParseResult, quote, unquote, urlparse

from config.urls import first, management_base

TIMEOUT_S = 2.0


class AdminError(Exception):
    """The management API did not answer, or not as expected."""


class Binding(NamedTuple):
    exchange: str
    routing_key: str
    arguments: dict


def queue_bindings(amqp_url: str, queue: str, timeout: float = TIMEOUT_S) -> list[Binding]:
    """Every binding of `queue`, the default exchange's included."""
    url = urlparse(first(amqp_url))
    vhost = unquote(url.path[1:]) if len(url.path) > 1 else "/"
    listed = _get(url, f"queues/{quote(vhost, safe='')}/{quote(queue, safe='')}/bindings", timeout)
    if not isinstance(listed, list):
        raise AdminError(f"bindings of {queue}: expected a list, got {type(listed).__name__}")
    return [Binding(b.get("source", ""), b.get("routing_key", ""), b.get("arguments") or {}) for b in listed]


def _get(url: ParseResult, path: str, timeout: float):
    request = urllib.request.Request(management_base(url) + path)
    user, password = unquote(url.username or "guest"), unquote(url.password or "guest")
    request.add_header("Authorization", "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode())
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.load(response)
    except Exception as exc:  # refused, timed out, 401, not JSON: all mean "no answer" here
        raise AdminError(f"{type(exc).__name__}: {exc}") from None


def get_json(amqp_url: str, path: str, timeout: float = TIMEOUT_S):
    """Any management API resource (`connections`, `queues/%2F`), as the URL's user."""
    return _get(urlparse(first(amqp_url)), path, timeout)


def vhost_path(amqp_url: str) -> str:
    """The URL's vhost as the management API spells it in paths (`%2F` for `/`)."""
    path = urlparse(first(amqp_url)).path
    return quote(unquote(path[1:]) if len(path) > 1 else "/", safe="")
