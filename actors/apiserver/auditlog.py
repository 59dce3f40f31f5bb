"""An apiserver's audit log file: one `audit.k8s.io/v1` Event a JSON line, per stage of each request
the policy records — RequestReceived when it is taken in, ResponseComplete with its answer's status —
unless the rule or the policy omits the stage (Kubernetes' `omitStages`).

Each line is written and flushed as it is recorded, before the answer leaves (kube-apiserver's log
backend in its default `blocking` mode): a line is in the kernel's hands once recorded, so a `kill -9`
of the apiserver loses none. A failing disk costs lines (kept, up to `MAX_PENDING`, and tried again
at most every `RETRY_S`), never a request.
"""
from __future__ import annotations

import contextlib
import json
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import structlog

from actors.apiserver.audit import Policy, audit_event, omitted_stages, response_status, rule_for
from actors.apiserver.authz.rules import Attributes, UserInfo

log = structlog.get_logger("audit")


@dataclass
class Audited:
    """A request the policy records: what the events of its stages share."""

    attrs: Attributes
    level: str
    omitted: frozenset[str]
    omit_managed_fields: bool
    audit_id: str
    user_agent: str
    received: float
    annotations: dict[str, str]
    request_object: Any = None
    impersonated: UserInfo | None = None  # whom the request ran as, when its caller impersonated


class AuditLog:
    MAX_PENDING = 100_000  # lines held while the disk fails; older ones are dropped beyond that
    RETRY_S = 1.0  # a failing disk is tried again at most this often

    def __init__(self, path: str | Path, policy: Policy, clock: Callable[[], float] = time.time):
        self.path, self.policy, self.clock = Path(path), policy, clock
        self._pending: list[str] = []
        self._lock = threading.Lock()  # the file and its queue: one writer at a time keeps lines in order
        self._file = None
        self._retry_at = 0.0  # monotonic: while failing, no try before this
        self.dropped = 0  # lines lost to a full queue while the disk failed
        self.failing = False

    # ---- stages ---------------------------------------------------------------------------------
    def begin(self, attrs: Attributes, *, request_object: Any = None, user_agent: str = "",
              audit_id: str | None = None, received: float | None = None,
              annotations: dict[str, str] | None = None, impersonated: UserInfo | None = None) -> Audited | None:
        """The policy's decision on a request, by the attributes the authorizer saw; writes its
        RequestReceived event unless omitted. None: not recorded (level None). Never raises."""
        try:
            rule = rule_for(self.policy, attrs)
            if rule is None or rule.level == "None":
                return None
            omit = rule.omitManagedFields if rule.omitManagedFields is not None else self.policy.omitManagedFields
            audited = Audited(attrs, rule.level, frozenset(omitted_stages(self.policy, rule)), omit,
                              audit_id or str(uuid.uuid4()), user_agent, received or self.clock(),
                              dict(annotations or {}), request_object, impersonated)
            self._event(audited, "RequestReceived", None)
            return audited
        except Exception:
            log.exception("audit.record_failed", verb=attrs.verb, resource=attrs.resource, name=attrs.name)
            return None

    def complete(self, audited: Audited | None, code: int, reason: str | None = None, message: str | None = None,
                 response_object: Any = None) -> None:
        """The request's ResponseComplete event, with the status it was answered with."""
        if audited is not None:
            self._event(audited, "ResponseComplete", response_status(code, reason, message), response_object)

    def wants(self, audited: Audited | None, stage: str) -> bool:
        return audited is not None and stage not in audited.omitted

    def record(self, attrs: Attributes, *, code: int = 200, reason: str | None = None, message: str | None = None,
               response_object: Any = None, **fields: Any) -> None:
        """A request answered at once: both its stages (`fields` as `begin` takes them)."""
        self.complete(self.begin(attrs, **fields), code, reason, message, response_object)

    def _event(self, audited: Audited, stage: str, status: dict | None, response_object: Any = None) -> None:
        if stage in audited.omitted:
            return
        try:
            event = audit_event(audited.level, audited.attrs, stage, audit_id=audited.audit_id,
                                user_agent=audited.user_agent, status=status, received=audited.received,
                                stamped=self.clock(), annotations=audited.annotations,
                                request_object=audited.request_object, response_object=response_object,
                                omit_managed_fields=audited.omit_managed_fields, impersonated=audited.impersonated)
            self._append(json.dumps(event, separators=(",", ":"), default=str) + "\n")
        except Exception:
            log.exception("audit.record_failed", stage=stage, audit_id=audited.audit_id)

    # ---- the file -------------------------------------------------------------------------------
    def _append(self, line: str) -> None:
        with self._lock:
            self._pending.append(line)
            if len(self._pending) > self.MAX_PENDING:
                excess = len(self._pending) - self.MAX_PENDING
                del self._pending[:excess]
                self.dropped += excess
            if not self.failing or time.monotonic() >= self._retry_at:
                self._write()

    def flush(self) -> None:
        """Try now to write what a failing disk left queued."""
        with self._lock:
            self._write()

    def _write(self) -> None:
        if not self._pending:
            return
        try:
            if self._file is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = open(self.path, "a", encoding="utf-8")
            self._file.write("".join(self._pending))
            self._file.flush()
            self._pending.clear()
            if self.failing:
                log.info("audit.writing_again", path=str(self.path))
            self.failing = False
        except Exception as exc:
            if not self.failing:  # once per failing spell, not every line
                log.error("audit.write_failed", path=str(self.path), lines=len(self._pending), error=str(exc))
            self.failing, self._retry_at = True, time.monotonic() + self.RETRY_S
            self._close_file()

    def close(self) -> None:
        """Write what is left and close the file (on the apiserver's shutdown)."""
        self.flush()
        with self._lock:
            self._close_file()

    def _close_file(self) -> None:
        with contextlib.suppress(Exception):
            if self._file is not None:
                self._file.close()
        self._file = None

    def __enter__(self) -> "AuditLog":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
