"""The HTTPS call to one webhook (Kubernetes' `util/webhook/client.go`): POST the AdmissionReview to
the URL with `?timeout=<n>s`, verify the server with the caBundle (the system's roots when empty), give
up after timeoutSeconds. Runs on the dispatcher's worker threads, never on the actor's; each thread keeps
its connections alive between calls, so a warm webhook costs one round trip."""
from __future__ import annotations

import base64
import http.client
import json
import socket
import ssl
import threading
from functools import lru_cache
from urllib.parse import urlsplit


class CallFailed(Exception):
    """`failed to call webhook: Post "<url>": <cause>`, as Go's client words the cause."""


_local = threading.local()


@lru_cache(maxsize=64)
def _context(ca_bundle: str) -> ssl.SSLContext:
    if not ca_bundle:
        return ssl.create_default_context()
    return ssl.create_default_context(cadata=base64.b64decode(ca_bundle).decode())


def post(url: str, ca_bundle: str, body: dict, timeout: int) -> object:
    """The reply's JSON; CallFailed when there is none to read."""
    target = f"{url}?timeout={timeout}s"
    parts = urlsplit(url)
    try:
        conn = _connection(parts.hostname, parts.port or 443, ca_bundle, timeout)
        data = json.dumps(body).encode()
        try:
            status, raw = _round_trip(conn, parts, timeout, data)
        except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
            _drop(parts.hostname, parts.port or 443, ca_bundle)  # a kept connection the server closed
            conn = _connection(parts.hostname, parts.port or 443, ca_bundle, timeout)
            status, raw = _round_trip(conn, parts, timeout, data)
    except (socket.timeout, TimeoutError):
        _drop(parts.hostname, parts.port or 443, ca_bundle)
        raise CallFailed(f'failed to call webhook: Post "{target}": context deadline exceeded') from None
    except ConnectionRefusedError:
        raise CallFailed(f'failed to call webhook: Post "{target}": dial tcp {parts.hostname}:{parts.port or 443}: '
                         f"connect: connection refused") from None
    except ssl.SSLError as exc:
        _drop(parts.hostname, parts.port or 443, ca_bundle)
        raise CallFailed(f'failed to call webhook: Post "{target}": tls: {exc.reason or exc}') from None
    except (OSError, http.client.HTTPException) as exc:
        _drop(parts.hostname, parts.port or 443, ca_bundle)
        raise CallFailed(f'failed to call webhook: Post "{target}": {exc}') from None
    if status != 200:
        raise CallFailed(f"failed to call webhook: the server responded with the status code {status}: "
                         f"{raw[:256].decode(errors='replace')}")
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise CallFailed(f"failed to call webhook: the response is not JSON: {exc}") from None


def _round_trip(conn: http.client.HTTPSConnection, parts, timeout: int, data: bytes) -> tuple[int, bytes]:
    path = (parts.path or "/") + f"?timeout={timeout}s"
    conn.timeout = timeout
    if conn.sock is not None:
        conn.sock.settimeout(timeout)
    conn.request("POST", path, body=data, headers={"Content-Type": "application/json",
                                                   "Accept": "application/json"})
    response = conn.getresponse()
    return response.status, response.read()


def _connection(host: str, port: int, ca_bundle: str, timeout: int) -> http.client.HTTPSConnection:
    pool = _local.__dict__.setdefault("connections", {})
    key = (host, port, ca_bundle)
    conn = pool.get(key)
    if conn is None:
        conn = pool[key] = http.client.HTTPSConnection(host, port, timeout=timeout, context=_context(ca_bundle))
    return conn


def _drop(host: str, port: int, ca_bundle: str) -> None:
    conn = _local.__dict__.get("connections", {}).pop((host, port, ca_bundle), None)
    if conn is not None:
        conn.close()
