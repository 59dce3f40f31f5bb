"""Authorization of a request. Every authenticated user may do everything until RBAC rules from
the configuration land (a later issue); this is the one place they will be checked."""
from __future__ import annotations

from bus.messages import Request


def authorize(user: str, req: Request) -> None:
    """Raise StatusError('Forbidden', ...) when `user` may not do `req`."""
    return None
