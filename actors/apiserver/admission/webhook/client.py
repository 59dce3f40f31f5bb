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


MAX_RESPONSE_BYTES = 4 << 20  # an AdmissionReview's reply: a patch of the largest object, base64, with room


class CallFailed(Exception):
    """`failed to call webhook: Post "<url>": <cause>`, as Go's client words the cause."""


class ResponseTooLarge(Exception):
    """A reply past MAX_RESPONSE_BYTES (read no further)."""


_local = threading.local()


@lru_cache(maxsize=64)
def _context(ca_bundle: str) -> ssl.SSLContext:
    if not ca_bundle:
        return ssl.create_default_context()
    return ssl.create_default_context(cadata=base64.b64decode(ca_bundle).decode())


def post(url: str, ca_bundle: str, body: dict, timeout: int, dial: tuple[str, int] | None = None) -> object:
    """The reply's JSON; CallFailed when there is none to read. `dial`: connect there (a Service's
    endpoint), still verifying the server as the URL's host."""
    target = f"{url}?timeout={timeout}s"
    parts = urlsplit(url)
    host, port = parts.hostname, parts.port or 443
    where = (host, port, ca_bundle, dial)
    try:
        status, raw = _exchange(where, parts.path, timeout, json.dumps(body).encode())
    except Exception as exc:
        _drop(where)  # a failed connection is never used again
        raise CallFailed(f'failed to call webhook: Post "{target}": {_cause(exc, *(dial or (host, port)))}') from None
    if status != 200:
        raise CallFailed(f"failed to call webhook: the server responded with the status code {status}: "
                         f"{raw[:256].decode(errors='replace')}")
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise CallFailed(f"failed to call webhook: the response is not JSON: {exc}") from None


def _exchange(where: tuple, path: str, timeout: int, data: bytes) -> tuple[int, bytes]:
    try:
        return _round_trip(_connection(where, timeout), path, timeout, data)
    except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
        _drop(where)  # a kept connection the server closed meanwhile: once more, afresh
        return _round_trip(_connection(where, timeout), path, timeout, data)


def _cause(exc: Exception, host: str, port: int) -> str:
    """The cause as Go's client words the common ones."""
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return "context deadline exceeded"
    if isinstance(exc, ConnectionRefusedError):
        return f"dial tcp {host}:{port}: connect: connection refused"
    if isinstance(exc, ssl.SSLCertVerificationError):
        return f"tls: failed to verify certificate: {exc.verify_message}"
    if isinstance(exc, ssl.SSLError):
        return f"tls: {exc.reason or exc}"
    return str(exc) or type(exc).__name__


def _round_trip(conn: http.client.HTTPSConnection, path: str, timeout: int, data: bytes) -> tuple[int, bytes]:
    """One exchange within `timeout` in all (Go's context deadline, not a socket's idle time: a server that
    drips a byte a second would otherwise hold a worker for ever), its body at most MAX_RESPONSE_BYTES."""
    path = (path or "/") + f"?timeout={timeout}s"
    conn.timeout = timeout
    if conn.sock is not None:
        conn.sock.settimeout(timeout)
    expired = threading.Event()
    deadline = threading.Timer(timeout, _cut, (conn, expired))
    deadline.daemon = True
    deadline.start()
    try:
        conn.request("POST", path, body=data, headers={"Content-Type": "application/json",
                                                       "Accept": "application/json"})
        response = conn.getresponse()
        raw = response.read(MAX_RESPONSE_BYTES + 1)
    except Exception:
        if expired.is_set():
            raise TimeoutError() from None
        raise
    finally:
        deadline.cancel()
    if expired.is_set():
        raise TimeoutError()
    if len(raw) > MAX_RESPONSE_BYTES:
        raise ResponseTooLarge(f"the response is larger than {MAX_RESPONSE_BYTES} bytes")
    return response.status, raw


def _cut(conn: http.client.HTTPSConnection, expired: threading.Event) -> None:
    """The deadline passed: the exchange's socket is shut, so the read in progress ends now."""
    expired.set()
    sock = conn.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _connection(where: tuple, timeout: int) -> http.client.HTTPSConnection:
    pool = _local.__dict__.setdefault("connections", {})
    conn = pool.get(where)
    if conn is None:
        host, port, ca_bundle, dial = where
        conn = http.client.HTTPSConnection(host, port, timeout=timeout, context=_context(ca_bundle))
        if dial is not None:  # TLS and Host still name `host`; the socket goes to the endpoint
            conn._create_connection = lambda _addr, *args: socket.create_connection(dial, *args)
        pool[where] = conn
        conn.connect()  # here, so a refusal is told apart from a kept connection the server closed
    return conn


def _drop(where: tuple) -> None:
    conn = _local.__dict__.get("connections", {}).pop(where, None)
    if conn is not None:
        conn.close()
