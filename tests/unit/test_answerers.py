"""Whom a caller believes a reply from (contract 2), and what the RPC client does with anyone else's."""
from __future__ import annotations

import msgpack
import pytest
import structlog
from structlog.testing import capture_logs

import bus.rpc
from bus.ids import unguessable_id
from bus.message import Message
from bus.rpc import RpcClient
from bus.topology import SCHEMA_HEADER, SCHEMA_VERSION
from config.answerers import api_answerers, store_answerers
from config.identities import broker_user_of

C = "kubus"
NODE = broker_user_of(C, "node", "node-1")


@pytest.mark.parametrize("answerers, user, believed", [
    pytest.param(api_answerers(C), broker_user_of(C, "apiserver"), True, id="apiserver"),
    pytest.param(api_answerers(C), broker_user_of(C, "store"), True, id="store-answers-a-write"),
    pytest.param(api_answerers(C), NODE, False, id="kubelet-answers-a-get"),
    pytest.param(api_answerers(C), None, False, id="anonymous"),
    pytest.param(api_answerers(C), broker_user_of("other", "apiserver"), False, id="another-clusters-apiserver"),
    pytest.param(api_answerers(C), broker_user_of(C, "user", "mallory"), False, id="a-person"),
    pytest.param(api_answerers(C, "logs"), NODE, True, id="kubelet-answers-logs"),
    pytest.param(api_answerers(C, "logs"), broker_user_of(C, "hollow"), True, id="hollow-answers-logs"),
    pytest.param(api_answerers(C, "logs"), broker_user_of(C, "scheduler"), False, id="scheduler-answers-logs"),
    pytest.param(store_answerers(C), broker_user_of(C, "store"), True, id="store"),
    pytest.param(store_answerers(C), broker_user_of(C, "apiserver"), False, id="apiserver-answers-the-store"),
])
def test_who_is_believed(answerers, user, believed):
    assert (user in answerers) is believed


def test_correlation_ids_are_random_and_unrelated():
    ids = {unguessable_id() for _ in range(1000)}
    assert len(ids) == 1000 and all(len(i) == 32 for i in ids)


class FakeBus:
    """What RpcClient.call needs of a Bus, with the ioloop reduced to nothing."""

    def call_later(self, _delay, _fn):
        return None

    def cancel(self, _timer) -> None:
        pass

    def publish(self, *_args, **_kw) -> bool:
        return True


def reply(corr: str, user: str | None) -> Message:
    return Message(raw=msgpack.packb({"ok": True, "object": {"kind": "Pod"}}), routing_key="", exchange="",
                   redelivered=False, type="reply", message_id=None, correlation_id=corr, reply_to=None,
                   user_id=user, app_id=None, headers={SCHEMA_HEADER: SCHEMA_VERSION}, settle=lambda _how: None)


def test_a_reply_from_another_user_is_dropped_and_logged_and_the_call_still_waits(monkeypatch):
    rpc, answers = RpcClient(FakeBus(), 1 << 20), []
    rpc.ready = True
    corr = rpc.call("kubus.api", "apiserver", {"verb": "get"}, answers.append, 10, answerers=api_answerers(C))
    with capture_logs() as logs:
        # a logger an earlier test used is cached with the processors of then: a fresh one sees the capture
        monkeypatch.setattr(bus.rpc, "log", structlog.get_logger("bus.rpc"))
        rpc._on_reply(reply(corr, NODE))
    assert answers == [] and corr in rpc.pending
    assert [(e["event"], e["user"]) for e in logs] == [("rpc.reply_refused", NODE)]
    rpc._on_reply(reply(corr, broker_user_of(C, "apiserver")))
    assert answers[0]["ok"] and not rpc.pending
