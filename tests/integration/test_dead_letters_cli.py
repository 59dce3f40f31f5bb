"""`kubus dead-letters`: lists what is in `{c}.dead` and why without consuming it, sends one back
with --requeue, and is for the broker administrator only."""
from __future__ import annotations

import subprocess
import uuid
from urllib.parse import unquote, urlparse

import pika
import pytest

from bus.deadletters import REQUEUED, peek
from bus.topology import SCHEMA_HEADER, SCHEMA_VERSION, Names
from bus.testkit import blocking
from testkit.waiting import wait_until
from testkit import cli
from tests.helpers import read_queue

pytestmark = pytest.mark.shared_plane  # one control plane for the module, a namespace per test

GARBAGE = b"\xc1\xc1 not msgpack"


def kubus(procs, *args: str, **env: str) -> subprocess.CompletedProcess:
    return cli.kubus("dead-letters", *args, env={**procs.env, **env})


def publish(url: str, exchange: str, key: str) -> str:
    """Garbage as the user of `url` (its user_id set, as the broker checks); its message id."""
    ident = f"poison-{uuid.uuid4().hex[:8]}"
    conn = blocking(url)
    try:
        props = pika.BasicProperties(headers={SCHEMA_HEADER: SCHEMA_VERSION}, message_id=ident, type="request",
                                     user_id=unquote(urlparse(url).username))
        conn.channel().basic_publish(exchange, key, GARBAGE, props)
    finally:
        conn.close()
    return ident


def listed_row(procs, ident: str) -> list[str] | None:
    out = kubus(procs)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    rows = [line.split("   ") for line in lines[1:]]
    return next(([cell.strip() for cell in row if cell.strip()] for row in rows if row[0].strip() == ident), None)


def dead(settings) -> list:
    return peek(settings.admin_url, Names(settings.cluster), 100)[1]


def came_back(settings, ident: str):
    """The requeued message, dead-lettered again, and nothing else of that id in `{c}.dead`."""
    letters = [m for m in dead(settings) if m.id == ident]
    return letters if letters and all((m.properties.headers or {}).get(REQUEUED) == 1 for m in letters) else None


@pytest.fixture(autouse=True)
def empty_dead_queue(settings):
    """The dead queue as a new cluster has it, empty: an earlier test's letters are taken away."""
    read_queue(settings.admin_url, Names(settings.cluster).dead_queue)


def test_lists_a_poison_request_without_consuming_it_and_requeues_it(cluster, procs, settings):
    names = Names(settings.cluster)
    ident = publish(settings.amqp_url, names.api, "apiserver")
    row = wait_until(lambda: listed_row(procs, ident), what="the poison request in the table")
    assert row[2:] == ["apiserver", row[3], names.api, "apiserver", f"{len(GARBAGE)}B"], row
    assert row[3].startswith("undecodable"), row
    again = listed_row(procs, ident)  # listing took nothing
    assert again[:1] + again[2:] == row[:1] + row[2:]  # all but the AGE
    assert [m.id for m in dead(settings)] == [ident]

    requeued = kubus(procs, "--requeue", ident)
    assert requeued.returncode == 0, requeued.stderr
    assert requeued.stdout.strip() == f"{ident} requeued to exchange {names.api} key apiserver without a user_id"
    back = wait_until(lambda: came_back(settings, ident), what="the requeued request dead-lettered again")
    assert len(back) == 1 and back[0].actor == "apiserver" and back[0].reason.startswith("undecodable")


def test_a_broker_dead_letter_shows_the_queue_and_goes_back_to_its_exchange(cluster, procs, settings):
    """A watch rejects an event that is not the store's to the broker's dead-lettering; requeued as the
    administrator, it cannot keep the store's user_id, and is rejected again."""
    names = Names(settings.cluster)
    key = f"pod.{cluster.namespace}.-"
    watch = cluster.watch("Pod", cluster.namespace).wait_synced()
    ident = publish(procs.url_of("store", ()), names.events, key)
    row = wait_until(lambda: listed_row(procs, ident), what="the rejected event in the table")
    assert row[2:] == ["broker", f"rejected in {watch.informer.spec.name}", names.events, key, f"{len(GARBAGE)}B"], row

    requeued = kubus(procs, "--requeue", ident)
    assert requeued.returncode == 0, requeued.stderr
    store_user = unquote(urlparse(procs.url_of("store", ())).username)
    assert requeued.stdout.strip() == (f"{ident} requeued to exchange {names.events} key {key} without a "
                                       f"user_id (the administrator may not impersonate {store_user})")
    wait_until(lambda: came_back(settings, ident), what="the requeued event rejected again")
    watch.close()


def test_only_the_broker_administrator_reads_the_dead_queue(cluster, procs, settings):
    refused = kubus(procs, KUBUS_ADMIN_URL=settings.amqp_url)  # the person `admin`, not the broker's
    assert refused.returncode == 1
    assert "only the broker administrator reads the dead queue" in refused.stderr, refused.stderr
    assert "KUBUS_ADMIN_URL" in refused.stderr


def test_requeue_of_an_unknown_id_changes_nothing(cluster, procs, settings):
    ident = publish(settings.amqp_url, Names(settings.cluster).api, "apiserver")
    wait_until(lambda: [m for m in dead(settings) if m.id == ident], what="the poison request in the dead queue")
    missing = kubus(procs, "--requeue", "no-such-id")
    assert missing.returncode == 1 and "no message 'no-such-id'" in missing.stderr, missing.stderr
    assert [m.id for m in dead(settings)] == [ident]
