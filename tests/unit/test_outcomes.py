"""How an auditing apiserver learns its forwarded commands' outcomes: what the store reports for a
batch that asks (one reply, one entry per command in order), and how the apiserver reads it."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from actors.apiserver.outcomes import DROPPED, UNKNOWN, settle
from api.status import StatusError
from bus import codec
from store.commands import failure
from store.inbox import Answers
from store.outcomes import outcome, outcome_replies

ADDRESS = "amq.rabbitmq.reply-to.g1h2AA1yZXBseUA5MjQ4ODg0AAAZ3AAAAAFrCAjA.ga6wik+BQ6Xp/YXA30OHmw=="


@pytest.mark.parametrize("parts, expected", [
    pytest.param([codec.pack_map({"ok": True}, {"object": codec.encode({"a": 1})})], [200, None, None], id="ok"),
    pytest.param([codec.pack_map({"ok": True, "warnings": ["w"]}, {"object": b"\x80"})], [200, None, None],
                 id="ok-with-warnings"),
    pytest.param(iter([b"lazy"]), [200, None, None], id="big-read-made-as-sent"),
    pytest.param([failure(StatusError("Conflict", "the object has been modified"))],
                 [409, "Conflict", "the object has been modified"], id="conflict"),
    pytest.param([failure(StatusError("Forbidden", "exceeded quota: q"))], [403, "Forbidden", "exceeded quota: q"],
                 id="quota"),
    pytest.param(None, None, id="dropped-unanswered"),
])
def test_the_outcome_of_an_answer(parts, expected):
    assert outcome(parts) == expected


def _msg(reply_to, type_="commands", corr="c1"):
    return SimpleNamespace(reply_to=reply_to, type=type_, correlation_id=corr)


def test_one_reply_per_asking_batch_with_its_commands_in_order():
    asking, silent, alone = _msg(ADDRESS), _msg(None), _msg(ADDRESS, "command")
    cmds = [SimpleNamespace(msg=m) for m in (asking, silent, asking, alone, asking)]
    ok = [codec.pack_map({"ok": True}, {})]
    replies = [(cmds[0], ok), (cmds[1], ok), (cmds[2], [failure(StatusError("AlreadyExists", "x"))]), (cmds[3], ok)]
    # cmds[4] expired: no answer
    [(to, corr, [body])] = outcome_replies(Answers(replies, cmds), [asking, silent, alone])
    assert (to, corr) == (ADDRESS, "c1")
    assert body == {"ok": True, "outcomes": [[200, None, None], [409, "AlreadyExists", "x"], None]}


def test_a_batch_naming_no_direct_address_gets_nothing():
    for msg in (_msg(None), _msg("kubus.kubelet.node-1")):  # never a reply into someone's queue
        assert outcome_replies(Answers([], [SimpleNamespace(msg=msg)]), [msg]) == []


def _recorder():
    got: list = []
    return got, lambda *outcome: got.append(outcome)


def test_each_waiting_command_gets_its_outcome():
    (a, rec_a), (b, rec_b) = _recorder(), _recorder()
    settle([rec_a, None, rec_b], {"ok": True, "outcomes": [[409, "Conflict", "m"], [200, None, None], None]})
    assert a == [(409, "Conflict", "m")] and b == [(504, "Timeout", DROPPED)]


@pytest.mark.parametrize("reply, code, reason", [
    pytest.param(StatusError("Timeout", "late"), 504, "Timeout", id="no-answer-in-time"),
    pytest.param(StatusError("ServiceUnavailable", "lost"), 503, "ServiceUnavailable", id="connection-lost"),
    pytest.param({"ok": True, "outcomes": [[200, None, None]]}, 503, "ServiceUnavailable", id="wrong-length"),
    pytest.param({"ok": True}, 503, "ServiceUnavailable", id="no-outcomes"),
])
def test_an_outcome_not_known_says_so(reply, code, reason):
    got, rec = _recorder()
    settle([rec, rec], reply)
    assert got == [(code, reason, UNKNOWN)] * 2
