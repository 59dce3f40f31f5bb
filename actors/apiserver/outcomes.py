"""How an auditing apiserver learns how its forwarded requests ended. The store answers each client
itself, so a `commands` batch with an audited command names this apiserver's reply address (its
AMQP `reply_to`, with a correlation id of its own) and the store sends back one reply for the batch,
`{ok: true, outcomes: [[code, reason, message] | None, …]}` in the batch's order (`store/outcomes.py`).
Each audited command's ResponseComplete is written then. A batch without one asks for nothing: with
auditing off the path to the store is as it was."""
from __future__ import annotations

import time
from typing import Any, Callable

import structlog

from api.status import StatusError
from bus.rpc import RpcClient
from config.answerers import Answerers

log = structlog.get_logger("apiserver.outcomes")

Outcome = Callable[[int, str | None, str | None], None]  # records a request's (code, reason, message)
GRACE_S = 2.0  # beyond the batch's last deadline: the store's answer on its way back
DROPPED = "the request's deadline passed before the store took it up; it was not applied"
UNKNOWN = "the store's answer did not reach this apiserver; the request may have been applied"


class Outcomes:
    def __init__(self, rpc: RpcClient, timeout_s: float, answerers: Answerers):
        self.rpc, self.timeout_s, self.answerers = rpc, timeout_s, answerers  # the store's user: who answers

    def expect(self, waiting: list[Outcome | None], expires: list[float | None]) -> str | None:
        """The correlation id a batch carries when some of its commands (`waiting`, in the batch's
        order; None for a command not audited) want their outcome; None when none does."""
        if not any(waiting):
            return None
        if not self.rpc.ready:  # no reply consumer: a message naming DIRECT would close the channel
            settle(waiting, StatusError("ServiceUnavailable", "no reply address"))
            return None
        deadline = max((e for e in expires if e is not None), default=time.time() + self.timeout_s)
        return self.rpc.expect(lambda reply: settle(waiting, reply), max(deadline - time.time(), 0) + GRACE_S,
                               self.answerers)

    def forget(self, corr: str | None) -> None:
        """The batch never reached the store (its requests are answered or redelivered otherwise)."""
        if corr is not None:
            self.rpc.forget(corr)


def settle(waiting: list[Outcome | None], reply: dict[str, Any] | StatusError) -> None:
    """Each waiting command's outcome, from the store's reply; a batch whose reply did not come (a
    timeout, a lost connection) or makes no sense is recorded as not known."""
    outcomes = reply.get("outcomes") if isinstance(reply, dict) else None
    if not isinstance(outcomes, list) or len(outcomes) != len(waiting):
        if isinstance(reply, StatusError):
            code, reason = reply.code, reply.reason
        else:
            code, reason = 503, "ServiceUnavailable"
            log.error("apiserver.outcomes_malformed", commands=len(waiting))
        for done in filter(None, waiting):
            done(code, reason, UNKNOWN)
        return
    for done, outcome in zip(waiting, outcomes):
        if done is not None:
            done(*_parts(outcome))


def _parts(outcome: Any) -> tuple[int, str | None, str | None]:
    if outcome is None:
        return 504, "Timeout", DROPPED
    if isinstance(outcome, list) and len(outcome) == 3 and isinstance(outcome[0], int):
        code, reason, message = outcome
        return code, reason if isinstance(reason, str) else None, message if isinstance(message, str) else None
    return 503, "ServiceUnavailable", UNKNOWN
