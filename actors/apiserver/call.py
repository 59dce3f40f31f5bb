"""A request on its way through the apiserver: what the chain has learned of it so far."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from actors.apiserver.authz.rules import Decision, UserInfo
from bus.message import Message
from bus.messages import Request


@dataclass
class Call:
    """A request on its way through the apiserver."""

    msg: Message
    req: Request | None
    user: UserInfo | None = None  # whom it runs as: the caller, or whom the caller impersonates
    impersonator: UserInfo | None = None  # the caller, when it impersonates
    decision: Decision | None = None
    annotations: dict[str, str] = field(default_factory=dict)
    steps: int = 0  # commands of the apiserver's own made for it so far
    started: float = field(default_factory=time.monotonic)  # for apiserver_request_duration_seconds
