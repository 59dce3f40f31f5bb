"""The apiserver's half of auditing: what a request's audit record names (who sent it, what the
authorizer saw of it, its decision), written when the request arrives and when its answer is known —
here, or from the store's outcomes of a forwarded command. `auditlog.py` writes the lines, `audit.py`
is the policy and the event's shape."""
from __future__ import annotations

import time

from actors.apiserver.attributes import VERBS, of_request
from actors.apiserver.audit import success_code
from actors.apiserver.authz import audit_annotations
from actors.apiserver.authz.rules import Attributes, UserInfo
from actors.apiserver.call import Call
from actors.apiserver.outcomes import Outcome
from api.registry import known, lookup
from api.status import StatusError
from bus.codec import DecodeError
from bus.message import Message
from bus.messages import Request, parse_client_request


class Auditing:
    """Mixed into the apiserver (`self.audit`, `self.authn`, `self.log` are its)."""

    def _undecodable(self, msg: Message, exc: DecodeError) -> None:
        """A request the runtime cannot decode is dead-lettered (contract 2); the audit log names its sender."""
        msg.body = None
        self._audit(Call(msg, None, self._sender(msg)), 400, "BadRequest",
                    f"the request could not be decoded: {exc.detail}"[:1024])

    def _sender(self, msg: Message) -> UserInfo | None:
        """Who sent a request that was never read: authenticated as any is; None if not even that."""
        try:
            return self.authn.user(msg.user_id)
        except Exception:
            return None

    def _audit(self, call: Call, code: int | None, reason: str | None = None,
               message: str | None = None) -> Outcome | None:
        """Audit a request answered here with `code` (0: ok): its RequestReceived and ResponseComplete.
        `code` None: handed on, the answer comes from elsewhere; RequestReceived now, and the function
        that records the ResponseComplete once its outcome is known (None when the policy wants none).
        Never raises: an audit failure must not fail the request."""
        if self.audit is None:
            return None
        try:
            audited, verb = self._audit_begin(call)
        except Exception:
            self.log.exception("apiserver.audit_failed", message_id=call.msg.message_id)
            return None
        if code is not None:
            self.audit.complete(audited, code or success_code(verb), reason, message)
            return None
        if not self.audit.wants(audited, "ResponseComplete"):
            return None
        return lambda code, reason, message: self.audit.complete(
            audited, success_code(verb) if code == 200 else code, reason, message)

    def _audit_begin(self, call: Call):
        """The request's audit record (None: the policy records none), RequestReceived written, and its verb."""
        msg = call.msg
        user = call.impersonator or call.user or UserInfo(msg.user_id or "system:anonymous")
        req = call.req or _parsed(msg.body)
        attrs = _attributes(user, req, msg.body)
        notes = {**_decision(call), **call.annotations}
        received = time.time() - (time.monotonic() - call.started)
        return self.audit.begin(attrs, request_object=req.object if req else None, user_agent=msg.app_id or "",
                                audit_id=msg.message_id, received=received, annotations=notes,
                                impersonated=call.user if call.impersonator else None), attrs.verb


def _decision(call: Call) -> dict[str, str]:
    """The authorizer's audit annotations: its decision, or `forbid` when it refused (it raised after
    authentication, before a decision was kept); none when it never ran."""
    if call.decision is not None:
        return audit_annotations(call.decision)
    if call.user is not None and call.req is not None:
        return {"authorization.k8s.io/decision": "forbid", "authorization.k8s.io/reason": ""}
    return {}


def _parsed(body) -> Request | None:
    """A request refused before it was read (a full queue) as it was sent; None if it cannot be read."""
    try:
        return parse_client_request(body) if isinstance(body, dict) else None
    except StatusError:
        return None


def _attributes(user: UserInfo, req: Request | None, body) -> Attributes:
    """What the authorizer saw of a request; of one that could not be read, what it names (a verb,
    a kind kubus serves, a namespace and a name, each if it is a string)."""
    if req is not None:
        try:
            return of_request(user, req)[0]
        except StatusError:  # a kind kubus does not serve: its answer says so, the audit names it as sent
            return Attributes(user, req.verb, req.kind.lower(), namespace=req.namespace or "", name=req.name or "")
    fields = {f: v for f, v in (body.items() if isinstance(body, dict) else ()) if isinstance(v, str)}
    verb, sub = VERBS.get(fields.get("verb", ""), (fields.get("verb", "")[:32], ""))
    info = lookup(fields["kind"]) if known(fields.get("kind", "")) else None
    if info is None:
        return Attributes(user, verb, name=fields.get("name", "")[:253])
    namespace = fields.get("namespace", "")[:253] if info.namespaced else ""
    return Attributes(user, verb, info.plural, info.group, sub, namespace, fields.get("name", "")[:253])
