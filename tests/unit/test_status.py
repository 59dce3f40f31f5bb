"""`kubus status`'s tables from what the management API says (pure: the API's JSON as data)."""
from __future__ import annotations

from cli.status import Broker, actors_table, queues_table


def _conn(name: str, user: str, peer: int) -> dict:
    return {"name": f"127.0.0.1:{peer} -> 127.0.0.1:5672", "user": user, "state": "running", "channels": 2,
            "client_properties": {"connection_name": name}}


def test_the_lock_holder_is_active_and_its_twin_a_standby():
    view = Broker([_conn("store", "c-store", 1), _conn("store", "c-store", 2), _conn("store replies", "c-store", 3),
                   _conn("apiserver", "c-apiserver", 4)],
                  [{"name": "c.store.lock", "exclusive": True}], {"127.0.0.1:2 -> 127.0.0.1:5672"})
    roles = [(row[0], row[4]) for row in actors_table(view)[1:]]
    assert roles == [("apiserver", ""), ("store", "standby"), ("store", "active"), ("store replies", "")]


def test_queues_show_depth_consumers_and_rates():
    view = Broker([], [{"name": "c.store", "messages": 3, "consumers": 1,
                        "message_stats": {"publish_details": {"rate": 12.34}}}], set())
    assert queues_table(view)[1] == ["c.store", "3", "1", "12.3", "0.0"]
