"""Broker users and their permissions, through RabbitMQ's management HTTP API (contract 5).

Every call is made as the broker administrator whose AMQP URL is passed in (the API listens on the
same host, port 15672, 15671 for `amqps`, and takes the same credentials); the vhost is the URL's.
Calls block for at most `TIMEOUT_S`. A refusal raises `AccountError` with the broker's own text; a call the
API failed itself (a 5xx: under load its internal calls time out, and it says 500) is tried twice more.
"""
from __future__ import annotations

import base64
import json
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import ParseResult, quote, unquote, urlparse

from bus.admin import AdminError
from bus.permissions import Permissions
from config.urls import first, management_base

TIMEOUT_S = 5.0
RETRY_WAITS_S = (0.2, 0.5)  # before the second and the third try of a call the API failed (5xx)


class AccountError(AdminError):
    """The management API refused a call (`status` is its HTTP code; 0 when it did not answer)."""

    def __init__(self, message: str, status: int = 0):
        super().__init__(message)
        self.status = status


def ensure_user(admin_url: str, user: str, password: str, tags: tuple[str, ...] = ()) -> None:
    """Create `user`, or set its password and tags (replaced, not merged) if it exists."""
    _call(admin_url, "PUT", f"users/{_q(user)}", {"password": password, "tags": ",".join(tags)})


def delete_user(admin_url: str, user: str) -> bool:
    """Delete `user` (its connections close); False when there was no such user."""
    try:
        _call(admin_url, "DELETE", f"users/{_q(user)}")
    except AccountError as exc:
        if exc.status == 404:
            return False
        raise
    return True


def users_with_prefix(admin_url: str, prefix: str) -> list[str]:
    """The names of the broker's users that start with `prefix`, sorted."""
    listed = _call(admin_url, "GET", "users?columns=name")
    return sorted(u["name"] for u in listed if isinstance(u, dict) and u.get("name", "").startswith(prefix))


def set_permissions(admin_url: str, user: str, configure: str, write: str, read: str) -> None:
    """The user's three regexes on the URL's vhost (replaced)."""
    body = {"configure": configure, "write": write, "read": read}
    _call(admin_url, "PUT", f"permissions/{_vhost(admin_url)}/{_q(user)}", body)


def set_topic_permissions(admin_url: str, user: str, exchange: str, write: str, read: str) -> None:
    """The user's routing-key regexes on one topic exchange of the URL's vhost (replaced)."""
    body = {"exchange": exchange, "write": write, "read": read}
    _call(admin_url, "PUT", f"topic-permissions/{_vhost(admin_url)}/{_q(user)}", body)


def clear_topic_permissions(admin_url: str, user: str) -> None:
    """Remove every topic permission of the user on the URL's vhost (those exchanges become open)."""
    try:
        _call(admin_url, "DELETE", f"topic-permissions/{_vhost(admin_url)}/{_q(user)}")
    except AccountError as exc:
        if exc.status != 404:
            raise


def permissions_of(admin_url: str, user: str) -> Permissions | None:
    """What the broker holds for the user on the URL's vhost; None without a permission row."""
    vhost = unquote(_vhost(admin_url))
    rows = [p for p in _call(admin_url, "GET", f"users/{_q(user)}/permissions") if p.get("vhost") == vhost]
    if not rows:
        return None
    topics = {t["exchange"]: (t["write"], t["read"])
              for t in _call(admin_url, "GET", f"users/{_q(user)}/topic-permissions") if t.get("vhost") == vhost}
    return Permissions(rows[0]["configure"], rows[0]["write"], rows[0]["read"], topics)


def apply(admin_url: str, user: str, wanted: Permissions) -> None:
    """Make the user's permissions exactly `wanted`: topic permissions first (an exchange without
    one is open), then the three regexes. Topic permissions on exchanges `wanted` does not list are
    cleared (the API clears them all at once, so the wanted ones are set again after)."""
    held = permissions_of(admin_url, user)
    if held is not None and set(held.topics) - set(wanted.topics):
        clear_topic_permissions(admin_url, user)
    for exchange, (write, read) in wanted.topics.items():
        set_topic_permissions(admin_url, user, exchange, write, read)
    set_permissions(admin_url, user, wanted.configure, wanted.write, wanted.read)


# ---- the HTTP call -------------------------------------------------------------------------------
def _q(name: str) -> str:
    return quote(name, safe="")


def _vhost(admin_url: str) -> str:
    path = urlparse(first(admin_url)).path
    return _q(unquote(path[1:]) if len(path) > 1 else "/")


def _call(admin_url: str, method: str, path: str, body: dict | None = None) -> Any:
    for wait in (*RETRY_WAITS_S, None):
        try:
            return _once(admin_url, method, path, body)
        except AccountError as exc:
            if wait is None or exc.status < 500:
                raise
            time.sleep(wait)


def _once(admin_url: str, method: str, path: str, body: dict | None) -> Any:
    url = urlparse(first(admin_url))
    request = urllib.request.Request(management_base(url) + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    request.add_header("Authorization", _basic(url))
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            raw = response.read()
    except urllib.error.HTTPError as exc:
        raise AccountError(f"{method} /api/{path}: {exc.code} {_reason(exc)}", exc.code) from None
    except OSError as exc:  # refused, timed out
        raise AccountError(f"{method} /api/{path}: {type(exc).__name__}: {exc}") from None
    return json.loads(raw) if raw else None


def _basic(url: ParseResult) -> str:
    user, password = unquote(url.username or "guest"), unquote(url.password or "guest")
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def _reason(exc: urllib.error.HTTPError) -> str:
    """The broker's text: `{"error": ..., "reason": ...}` as the management API answers."""
    try:
        answer = json.loads(exc.read() or b"{}")
        return f"{answer.get('error', '')}: {answer.get('reason', '')}".strip(": ")
    except (ValueError, AttributeError):
        return exc.reason or ""
