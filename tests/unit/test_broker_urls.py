"""Broker URL settings that name several nodes: split in order, each node's credentials replaced,
the management API found at the AMQP port + 10000."""
from __future__ import annotations

from urllib.parse import urlparse

import pytest

from config.credentials import url_as
from config.urls import first, management_base, split

NODES = "amqp://guest:guest@127.0.0.1:5701/, amqp://guest:guest@127.0.0.1:5702/,amqp://guest:guest@127.0.0.1:5703/"


def test_nodes_are_split_in_order_and_blanks_dropped():
    assert split(NODES + ",") == [f"amqp://guest:guest@127.0.0.1:{p}/" for p in (5701, 5702, 5703)]
    assert first(NODES) == "amqp://guest:guest@127.0.0.1:5701/"
    assert split("amqp://a:b@h/") == ["amqp://a:b@h/"]
    with pytest.raises(ValueError, match="no broker URL"):
        split(" , ")


def test_every_node_gets_the_other_users_credentials():
    assert split(url_as(NODES, "c-user-alice", "p@ss")) == [
        f"amqp://c-user-alice:p%40ss@127.0.0.1:{p}/" for p in (5701, 5702, 5703)]


@pytest.mark.parametrize("url, base", [
    ("amqp://guest:guest@127.0.0.1/", "http://127.0.0.1:15672/api/"),
    ("amqp://guest:guest@127.0.0.1:5702/", "http://127.0.0.1:15702/api/"),
    ("amqps://u:p@broker.local/", "https://broker.local:15671/api/"),
])
def test_the_management_api_is_at_the_amqp_port_plus_10000(url, base):
    assert management_base(urlparse(url)) == base
