"""The tests' own kit: real actor processes per test, and raw broker access. What benches share
with tests (the waiter, the broker clean-up, people, the web server pod …) is `testkit`."""
from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pika

from bus.replyto import DIRECT
from bus.testkit import blocking
from runtime import spawn
from runtime.spawn import ROOT
from testkit.waiting import wait_until


class Procs:
    """Actor processes for one test; all killed at teardown."""

    def __init__(self, env: dict[str, str], logdir: Path, settings):
        self.env = env
        self.logdir = logdir
        self.settings = settings
        self.procs: list[spawn.Process] = []
        self.modules: set[str] = set()  # what was started: teardown undoes only what those may leave
        self.accounts: dict[tuple[str, str | None], str] = {}  # (role, name) -> the actor's AMQP URL

    def start(self, module: str, *args: str, label: str | None = None, **env: str) -> spawn.Process:
        """Run `python -m module args` (forked warm) as the broker user its role has (made on first use)."""
        label = label or module.rsplit(".", 1)[-1]
        env = {"KUBUS_AMQP_URL": self.url_of(module, args), **env}
        with open(self.logdir / f"{label}-{len(self.procs)}.log", "w") as log:
            proc = spawn.start(module, *args, cwd=ROOT, env={**self.env, **env}, stdout=log, stderr=subprocess.STDOUT)
        self.procs.append(proc)
        self.modules.add(module)
        return proc

    def url_of(self, module: str, args) -> str:
        from cli.bootstrap import actor_account_url
        from config.credentials import role_of_actor

        role = role_of_actor(module, args)
        if role not in self.accounts:
            self.accounts[role] = actor_account_url(self.settings, module, args)
        return self.accounts[role]

    def kill9(self, proc: spawn.Process) -> None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text()[-4000:]}" for p in sorted(self.logdir.glob("*.log")))




def reply_address(url: str) -> str:
    """A direct reply-to address as the broker hands it out to a caller (the caller is gone after)."""
    conn = blocking(url)
    try:
        ch = conn.channel()
        ch.basic_consume(DIRECT, lambda *_: None, auto_ack=True)
        queue = ch.queue_declare("", exclusive=True).method.queue
        ch.basic_publish("", queue, b"", pika.BasicProperties(reply_to=DIRECT))
        _method, props, _body = next(ch.consume(queue, auto_ack=True, inactivity_timeout=10))
        return props.reply_to
    finally:
        conn.close()






def read_queue(url: str, queue: str) -> list[tuple[Any, bytes]]:
    """Every message waiting in `queue` (properties, body), acked."""
    conn = blocking(url)
    out = []
    try:
        ch = conn.channel()
        while True:
            method, props, body = ch.basic_get(queue, auto_ack=True)
            if method is None:
                return out
            out.append((props, body))
    finally:
        conn.close()


def close_connections_of(pid: int, amqp_url: str) -> int:
    """Have the broker close every AMQP connection process `pid` holds (management API)."""
    import re
    from urllib.parse import urlparse

    import requests

    url = urlparse(amqp_url)
    api, auth = f"http://{url.hostname}:15672/api", (url.username or "guest", url.password or "guest")
    out = subprocess.run(["ss", "-tnpH", f"dport = :{url.port or 5672}"], capture_output=True, text=True).stdout
    ports = {int(m.group(1)) for line in out.splitlines() if f"pid={pid}," in line
             and (m := re.search(r":(\d+)\s+\S+:\d+\s", line))}
    def listed() -> list[dict]:  # the management API lists a connection a few seconds after it opens
        conns = [c for c in requests.get(f"{api}/connections", auth=auth, timeout=10).json()
                 if c.get("peer_port") in ports]
        return conns if len(conns) == len(ports) else []

    conns = wait_until(listed, 30, 0.5, what=f"the management API to list the connections of pid {pid}")
    for conn in conns:
        requests.delete(f"{api}/connections/{requests.utils.quote(conn['name'], safe='')}", auth=auth, timeout=10)
    return len(conns)


def management_answers(amqp_url: str) -> bool:
    from urllib.parse import urlparse

    import requests

    try:
        url = urlparse(amqp_url)
        return requests.get(f"http://{url.hostname}:15672/api/overview", auth=(url.username, url.password),
                            timeout=3).ok
    except Exception:
        return False


def raw_call(url: str, exchange: str, routing_key: str, bodies: list[bytes], timeout: float = 15.0,
             **props: Any) -> list[dict]:
    """Publish raw bodies (with `props` as AMQP properties) over direct reply-to and collect one reply
    each, decoded, in arrival order: a client that bypasses `Client`, as anyone on the bus can."""
    from urllib.parse import unquote, urlparse

    import msgpack

    from bus.topology import SCHEMA_HEADER, SCHEMA_VERSION

    conn = blocking(url)
    replies: list[dict] = []
    try:
        ch = conn.channel()
        ch.basic_consume(DIRECT, lambda _c, _m, _p, body: replies.append(msgpack.unpackb(body)),
                         auto_ack=True)
        props = {"reply_to": DIRECT, "content_type": "application/msgpack",
                 "user_id": unquote(urlparse(url).username or ""), **props,
                 "headers": {SCHEMA_HEADER: SCHEMA_VERSION, **props.get("headers", {})}}
        for i, body in enumerate(bodies):
            ch.basic_publish(exchange, routing_key, body, pika.BasicProperties(correlation_id=str(i), **props))
        deadline = time.monotonic() + timeout
        while len(replies) < len(bodies) and time.monotonic() < deadline:
            conn.process_data_events(time_limit=0.2)
        return replies
    finally:
        conn.close()


