"""Attacks on the gateway's logins (docs/security.md, "Logins at the gateway"), against a real gateway
process over HTTPS and the real broker: a flood of bad tokens does not starve a real user, guessing a
person's password is refused 429 before the broker is asked, and a changed or removed password stops
working within the login cache's lifetime. Each test ends with the cluster still serving."""
from __future__ import annotations

import asyncio
import http.client
import itertools
import json
import ssl
import time
from urllib.parse import urlparse

import aiohttp
import pytest

from bus.accounts import delete_user
from cli.bootstrap import Account, ensure_account
from testkit.people import as_person, token_of
from tests.e2e.conftest import running_gateway
from testkit.waiting import wait_until

PODS = "/api/v1/namespaces/default/pods"
ATTACKER, ELSEWHERE = "127.0.0.1", "127.0.0.2"  # two client addresses of the loopback network
FLOOD = 400
PEOPLE_ADMINS = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                 "metadata": {"name": "people-admins"},
                 "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
                 "subjects": [{"kind": "User", "apiGroup": "rbac.authorization.k8s.io", "name": name}
                              for name in ("alice", "bob")]}


def get(gateway, token: str, source: str = ATTACKER, timeout: float = 15.0) -> tuple[int, dict, dict]:
    """GET the default namespace's pods with a bearer token, from a client address: (code, headers, body)."""
    url, ca = gateway
    where = urlparse(url)
    conn = http.client.HTTPSConnection(where.hostname, where.port, timeout=timeout, source_address=(source, 0),
                                       context=ssl.create_default_context(cafile=str(ca)))
    try:
        conn.request("GET", PODS, headers={"Authorization": f"Bearer {token}"})
        answer = conn.getresponse()
        return answer.status, dict(answer.getheaders()), json.loads(answer.read() or b"{}")
    finally:
        conn.close()


@pytest.fixture
def people(cluster, settings):
    """alice and bob (broker users made now), cluster admins both; their tokens, with a password
    given or their own."""
    cluster.create(PEOPLE_ADMINS)
    for name in ("alice", "bob"):
        as_person(settings, name)

    def token(name: str, password: str | None = None) -> str:
        user, _, own = token_of(settings, name).partition(":")
        return f"{user}:{password or own}"
    return token


def test_a_flood_of_bad_tokens_does_not_starve_a_real_user(people, procs, settings, tmp_path):
    admin, alice = token_of(settings, "admin"), people("alice")
    bad = [f"{settings.cluster}-user-flood{i}:wrong-{i}" for i in range(FLOOD)]
    with running_gateway(procs, settings, tmp_path) as gateway:
        assert get(gateway, admin)[0] == 200  # logged in before the flood, at the attacker's address
        flood = Flood(gateway, bad)
        work = asyncio.run(flood.while_working([(alice, ELSEWHERE), (admin, ATTACKER)]))
        print(f"\nreal users' latencies during a flood of {FLOOD} bad tokens (s):",
              [f"{seconds:.3f}" for _code, seconds in work], f"; the flood: {flood.progress}")
        assert [code for code, _seconds in work] == [200] * len(work)
        assert set(flood.codes) <= {401, 429} and 429 in flood.codes  # the attacker's address is held back
        assert get(gateway, alice, ELSEWHERE)[0] == 200 and get(gateway, admin)[0] == 200


class Flood:
    """The bad tokens sent over and over by `workers` concurrent connections from the attacker's address,
    every token at least once, and on until the people have done their work."""

    def __init__(self, gateway, bad: list[str], workers: int = 100):
        self.url, ca = gateway
        self.context = ssl.create_default_context(cafile=str(ca))
        self.bad, self.workers = bad, workers
        self.sent, self.codes, self.progress, self.working = 0, [], "", True
        self.on = asyncio.Event()  # every worker has a request out

    async def while_working(self, people: list[tuple[str, str]], rounds: int = 5) -> list[tuple[int, float]]:
        """[(code, seconds)] of `rounds` requests of each person (token, address), made during the flood."""
        tokens = itertools.cycle(self.bad)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=self.context, limit=0),
                                         timeout=aiohttp.ClientTimeout(total=15)) as attacker:
            workers = [asyncio.create_task(self._attack(attacker, tokens)) for _ in range(self.workers)]
            await asyncio.wait_for(self.on.wait(), 60)
            before = len(self.codes)
            work = [await _timed(self.url, self.context, token, source)
                    for _ in range(rounds) for token, source in people]
            self.progress = f"{len(self.codes) - before} of its requests answered while they worked"
            self.working = False
            await asyncio.gather(*workers)
            return work

    async def _attack(self, session: aiohttp.ClientSession, tokens) -> None:
        while self.working or self.sent < len(self.bad):
            self.sent += 1
            if self.sent >= self.workers:
                self.on.set()
            try:
                self.codes.append(await _code(session, self.url, next(tokens)))
            except (asyncio.TimeoutError, aiohttp.ClientError):
                self.codes.append(0)  # unanswered: the assertions say so, not an exception out of the flood


async def _timed(url: str, context: ssl.SSLContext, token: str, source: str) -> tuple[int, float]:
    connector = aiohttp.TCPConnector(ssl=context, local_addr=(source, 0))
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=10)) as session:
        start = time.perf_counter()
        try:
            code = await _code(session, url, token)
        except asyncio.TimeoutError:
            code = 0
        return code, time.perf_counter() - start


async def _code(session: aiohttp.ClientSession, url: str, token: str) -> int:
    async with session.get(url + PODS, headers={"Authorization": f"Bearer {token}"}) as answer:
        await answer.read()
        return answer.status


def test_guessing_a_password_is_refused_429_before_the_broker_is_asked(people, procs, settings, tmp_path):
    env = {"KUBUS_GATEWAY_USER_FAILURES": "3", "KUBUS_GATEWAY_BACKOFF_S": "60"}
    with running_gateway(procs, settings, tmp_path, **env) as gateway:
        assert get(gateway, people("bob"))[0] == 200  # bob's own session, logged in before the guessing
        for name in ("alice", "bob"):
            guesses = [get(gateway, people(name, f"guess-{i}"))[0] for i in range(3)]
            assert guesses == [401, 401, 401]
            code, headers, body = get(gateway, people(name, "guess-3"))
            assert code == 429, body
            assert (body["kind"], body["reason"], body["code"]) == ("Status", "TooManyRequests", 429)
            assert int(headers["Retry-After"]) == body["details"]["retryAfterSeconds"] > 0
        # alice's right password is refused alike, from anywhere: the broker is not asked, a guess learns nothing
        assert get(gateway, people("alice"), ELSEWHERE)[0] == 429
        assert get(gateway, people("bob"))[0] == 200  # bob's session goes on; so does everyone else's
        assert get(gateway, token_of(settings, "admin"), ELSEWHERE)[0] == 200


@pytest.mark.parametrize("how", ["changed", "removed"])
def test_a_changed_or_removed_password_stops_working_within_the_cache_lifetime(how, people, procs, settings,
                                                                             tmp_path):
    alice = people("alice")
    with running_gateway(procs, settings, tmp_path, KUBUS_GATEWAY_LOGIN_TTL_S="1") as gateway:
        assert get(gateway, alice)[0] == 200
        if how == "changed":
            ensure_account(settings, b"", Account("user", "alice", password="a-new-password"))
        else:
            delete_user(settings.admin_url, alice.partition(":")[0])
        wait_until(lambda: get(gateway, alice, timeout=2)[0] == 401, 15, 0.2, what="the old password to be refused")
        if how == "changed":
            assert get(gateway, people("alice", "a-new-password"))[0] == 200
        assert get(gateway, token_of(settings, "admin"))[0] == 200
