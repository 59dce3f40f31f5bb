"""Which node a connection tries next: in turn, passing over the ones shunned for a while."""
from __future__ import annotations

from bus.nodes import SHUN_S, Nodes, Shunned

URLS = ["amqp://a/", "amqp://b/", "amqp://c/"]


def test_nodes_are_tried_in_turn():
    n = Nodes(URLS, shunned=Shunned())
    seen = [n.url]
    for _ in range(3):
        n.advance()
        seen.append(n.url)
    assert seen == URLS + URLS[:1]


def test_a_shunned_node_is_passed_over_until_its_time_is_up():
    clock = [100.0]
    n = Nodes(URLS, clock=lambda: clock[0], shunned=Shunned())
    n.advance()
    n.shun()  # b went silent
    n.advance()
    assert n.url == "amqp://c/"
    n.advance()
    assert n.url == "amqp://a/"
    n.advance()
    assert n.url == "amqp://c/"  # not b
    clock[0] += SHUN_S
    n.advance()
    n.advance()
    assert n.url == "amqp://b/"


def test_when_every_node_is_shunned_the_next_in_turn_is_tried():
    n = Nodes(URLS, shunned=Shunned())
    for _ in URLS:
        n.shun()
        n.advance()
    assert n.url == "amqp://a/"
    n.advance()
    assert n.url == "amqp://b/"


def test_what_one_connection_learns_holds_for_the_others_of_the_process():
    table = Shunned()
    replies, own = Nodes(["amqp://u:p@b/", "amqp://u:p@a/"], shunned=table), Nodes(URLS, shunned=table)
    replies.shun()  # b went silent under the reply connection
    own.advance()
    assert own.url == "amqp://c/"


def test_a_first_attempt_does_not_start_on_a_node_another_connection_found_silent():
    table = Shunned()
    Nodes(["amqp://u:p@a/"], shunned=table).shun()
    later = Nodes(URLS, shunned=table)  # a connection opened on first need, its host's node first
    later.settle()
    assert later.url == "amqp://b/"
    later.settle()
    assert later.url == "amqp://b/"  # a node not passed over stays
