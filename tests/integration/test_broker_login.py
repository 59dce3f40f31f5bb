"""`bus.login.may_log_in` against the real broker: a right password logs in, a wrong one or a user
without the vhost is refused at once, a node that does not answer is passed over, none answering is
an error rather than a refusal."""
from __future__ import annotations

import asyncio

import pytest

from bus.accounts import delete_user, ensure_user
from bus.login import may_log_in
from config.credentials import url_as
from testkit.hosts import free_port
from testkit.people import password


def check(url: str) -> bool:
    return asyncio.run(may_log_in(url, 3.0, "test login"))


def test_the_broker_decides_at_once(settings):
    admin = settings.amqp_url
    user = settings.amqp_user
    assert check(admin) is True
    assert check(url_as(admin, user, "not-the-password")) is False  # refused, not retried until a deadline
    assert check(url_as(admin, f"{settings.cluster}-user-nobody", "x")) is False
    nowhere = f"{settings.cluster}-user-nowhere"  # a broker user of no vhost (not the cluster's: its own to remove)
    ensure_user(settings.admin_url, nowhere, password("nowhere"))
    try:
        assert check(url_as(admin, nowhere, password("nowhere"))) is False
    finally:
        delete_user(settings.admin_url, nowhere)


def test_a_silent_node_is_passed_over_and_none_is_an_error(settings):
    dead = f"amqp://{settings.amqp_user}:{password('admin')}@127.0.0.1:{free_port()}/"
    assert check(f"{dead},{settings.amqp_url}") is True
    with pytest.raises(ConnectionError, match="no broker answered"):
        check(dead)
