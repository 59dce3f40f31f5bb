"""Kubernetes API status errors: reason, code, message and field causes."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CODES = {
    "BadRequest": 400,
    "Unauthorized": 401,
    "Forbidden": 403,
    "NotFound": 404,
    "MethodNotAllowed": 405,
    "AlreadyExists": 409,
    "Conflict": 409,
    "Gone": 410,
    "Expired": 410,
    "RequestEntityTooLarge": 413,
    "UnsupportedMediaType": 415,
    "Invalid": 422,
    "TooManyRequests": 429,
    "InternalError": 500,
    "ServiceUnavailable": 503,
    "Timeout": 504,
}


MAX_MESSAGE = 8192  # characters of a status message on the wire
MAX_CAUSES = 100


@dataclass(frozen=True)
class Cause:
    field: str
    message: str
    reason: str = "FieldValueInvalid"

    def to_dict(self) -> dict[str, str]:
        return {"field": _cut(self.field, 1024), "message": _cut(self.message, 1024), "reason": self.reason}


@dataclass
class StatusError(Exception):
    """An API error. `code` follows from `reason` unless given."""

    reason: str
    message: str
    causes: list[Cause] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        Exception.__init__(self, self.message)

    @property
    def code(self) -> int:
        return CODES.get(self.reason, 500)

    def to_dict(self) -> dict[str, Any]:
        """The wire form; message and causes are cut to bounds, so an answer always fits a message
        whatever the request echoed."""
        details = dict(self.details)
        if self.causes:
            details["causes"] = [c.to_dict() for c in self.causes[:MAX_CAUSES]]
        return {"code": self.code, "reason": self.reason, "message": _cut(self.message, MAX_MESSAGE), "details": details}

    @classmethod
    def from_dict(cls, status: dict[str, Any]) -> "StatusError":
        details = dict(status.get("details") or {})
        causes = [Cause(c.get("field", ""), c.get("message", ""), c.get("reason", ""))
                  for c in details.pop("causes", [])]
        return cls(status.get("reason", "InternalError"), status.get("message", ""), causes, details)

    def __str__(self) -> str:
        return f"{self.message} ({self.reason} {self.code})"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def bad_request(message: str) -> StatusError:
    return StatusError("BadRequest", message)


def too_large(limit: int) -> StatusError:
    return StatusError("RequestEntityTooLarge", f"Request entity too large: limit is {limit}")


def internal_error(exc: Exception) -> StatusError:
    """A bug met by one request: it is answered 500 and the actor goes on serving."""
    return StatusError("InternalError", f"Internal error occurred: {type(exc).__name__}")
