"""The apiserver: the gate every request passes (contract 5). Authentication (the broker-validated
`user_id`), authorization (system:masters, the node authorizer, RBAC), admission (mutating, the
object's validation, validating), then the command to the store, which answers the client
directly (the request's reply_to and correlation id travel with the command). Its chain reads a
local cache of the policy objects, fed straight from the store; it serves once that is synced."""
from __future__ import annotations

import uuid

from actors.apiserver.admission.webhook.dispatch import Dispatcher
from actors.apiserver.attributes import of_request
from actors.apiserver.audit import DEFAULT_POLICY, load_policy
from actors.apiserver.auditing import Auditing
from actors.apiserver.auditlog import AuditLog
from actors.apiserver.authn import Authenticator
from actors.apiserver.authz import Authorizer
from actors.apiserver.authz.rules import Decision
from actors.apiserver.batches import CommandBatches
from actors.apiserver.call import Call
from actors.apiserver.collections import Collections
from actors.apiserver.defaults import ensure_defaults
from actors.apiserver.eviction import Evictions
from actors.apiserver.impersonation import impersonated
from actors.apiserver.nodegraph import NodeGraph
from actors.apiserver.outcomes import Outcomes
from actors.apiserver.policycache import POLICY_KINDS, PolicyCache
from actors.apiserver.services import Services
from actors.apiserver.tokenreview import TokenReviews, own_token_review
from actors.apiserver.tokens import Tokens
from actors.apiserver.watches import WatchBounds, Watches
from actors.apiserver.writes import Writes
from api import customkinds, scope
from api import metrics as metrics_api
from api.registry import REVIEWS
from api.status import StatusError, bad_request, internal_error, too_large
from bus.declare import QueueSpec, apiserver_queue
from bus.message import Message
from bus.messages import STREAM_VERBS, USER_HEADER, parse_client_request, valid_reply_to
from bus.topology import segment
from config.answerers import store_answerers
from config.settings import Settings
from config.users import load_users, people
from runtime import metrics
from runtime.actor import Actor, Consumer
from runtime.informer import Route

SELF_REVIEW = Decision(True)  # a token reviewed by its own subject (tokenreview.py)
OBJECT_VERBS = frozenset(("create", "update", "updateStatus", "patch"))
REQUEST_ENVELOPE = 4096  # a request's fields besides its object


class ApiServer(Writes, Evictions, Collections, NodeGraph, Services, Tokens, TokenReviews, Auditing, Actor):
    name = "apiserver"

    def __init__(self, settings: Settings, **kw):
        super().__init__(settings, **kw)
        self.audit = AuditLog(settings.audit_log, load_policy(settings.audit_policy or DEFAULT_POLICY)) \
            if settings.audit_log else None
        self.batches = CommandBatches(self.bus, self.names.store, settings.max_message_bytes,
                                      settings.durable_commands, self._queue_full,
                                      Outcomes(self.rpc, settings.request_timeout_s, store_answerers(settings.cluster))
                                      if self.audit else None)
        self.cache = PolicyCache()
        self.webhooks = Dispatcher(lambda fn: self.bus.call_soon(fn))  # admission webhooks' calls, off this thread
        users = load_users(settings.users_file) if settings.users_file else []
        self.authn = Authenticator(settings.cluster, people(users), self.cache)
        self.authz = Authorizer(self.cache)
        self.watches = Watches(self.bus, self.names, self.bounds, self.authz.allowed,
                               WatchBounds(settings.max_watches_per_user, settings.max_watch_keys_per_user))
        self.cache.on_rbac_change.append(self.watches.recheck)
        self.instance = uuid.uuid4().hex[:12]
        self._serving = False
        self._sa_users: dict[str, str] = {}  # ServiceAccount broker users made (user -> uid), from a worker thread

    # ---- start: the policy cache first, then requests -------------------------------------------
    def informers(self):
        keys = tuple((self.names.events, f"{kind.lower()}.#") for kind in POLICY_KINDS)
        spec = QueueSpec(f"{self.names.apiserver_queue}.cache.{self.instance}", keys, durable=False,
                         exclusive=True, auto_delete=True)
        return [(spec, self.cache.on_delta)]

    def snapshot_route(self) -> Route:
        # apiservers may not be serving yet; only a store answers
        return Route(self.names.store, "store", {USER_HEADER: self.bus.user}, store_answerers(self.names.cluster))

    def on_synced(self) -> None:
        if not self._serving:
            self._serving = True
            self.start_consumer(Consumer(apiserver_queue(self.names, self.bounds), self.on_request,
                                         self.settings.prefetch, undecodable=self._undecodable))
            ensure_defaults(self)

    def on_lost(self) -> None:
        self._serving = False
        self.batches.drop()

    def on_drain(self, done) -> None:
        self.batches.flush()  # what is held for company leaves now
        if self.audit:
            self.audit.close()
        self.webhooks.close()
        done()

    # ---- one request ----------------------------------------------------------------------------
    def on_request(self, msg: Message) -> None:
        if not valid_reply_to(msg.reply_to):
            self.dead_letter(msg, "reply-to", f"{msg.reply_to!r} is not a direct reply-to address")
            return
        try:
            req = parse_client_request(msg.body)
        except StatusError as exc:
            self._malformed(msg, exc)
            return
        call = Call(msg, req)
        try:
            self._admit_and_forward(call)
        except StatusError as exc:
            self.refuse(call, exc)
        except Exception as exc:  # a bug met by one request: answer it, keep serving the rest
            self.log.exception("apiserver.request_failed", message_id=msg.message_id, user=msg.user_id)
            self.refuse(call, internal_error(exc))

    def _malformed(self, msg: Message, exc: StatusError) -> None:
        """A request that is not one: answered 400 when it can be, else dead-lettered with the reason;
        audited either way, as far as it can be read (who sent it, and what it names)."""
        call = Call(msg, None, self._sender(msg))
        if msg.reply_to:
            self.refuse(call, exc)
            return
        self._audit(call, exc.code, exc.reason, exc.message)
        self.dead_letter(msg, "invalid", exc.message)

    def refuse(self, call: Call, exc: StatusError) -> None:
        body = call.msg.body if isinstance(call.msg.body, dict) else {}
        self.log.info("apiserver.refused", verb=str(body.get("verb"))[:32], kind=str(body.get("kind"))[:64],
                      name=str(body.get("name"))[:253], user=call.msg.user_id, reason=exc.reason,
                      message=exc.message[:200])
        self.finish(call, {"ok": False, "status": exc.to_dict()})

    def _admit_and_forward(self, call: Call) -> None:
        req = call.req
        call.user = self.authn.user(call.msg.user_id)
        if req.impersonate is not None:
            self._impersonate(call)
        if req.kind == customkinds.SERVED and req.verb == "get":  # discovery: every authenticated user's
            self.finish(call, {"ok": True, "object": {"items": customkinds.sources()}})
            return
        call.decision = SELF_REVIEW if own_token_review(req, call.user.name) else \
            self.authz.check(of_request(call.user, req))
        scope.require_namespace(req.kind, req.verb, req.namespace)  # contract 5: a write needs one
        if req.verb in OBJECT_VERBS and len(call.msg.raw) > self.settings.max_object_bytes + REQUEST_ENVELOPE:
            raise too_large(self.settings.max_object_bytes)
        if req.kind == "TokenReview":
            self.review_token(call)
        elif req.kind in REVIEWS:
            self.review(call)
        elif req.kind in metrics_api.KINDS:
            self.serve_metrics(call)
        elif req.verb in ("watch", "logs", "token", "evict", "deletecollection"):
            getattr(self, f"serve_{req.verb}")(call)
        elif req.verb in STREAM_VERBS:
            self.serve_logs(call)  # handed to the pod's kubelet the same way
        elif req.verb == "snapshot":
            self.forward(call, dict(call.msg.body))
        else:
            self.write(call)

    def _impersonate(self, call: Call) -> None:
        """From here on the request is the impersonated user's (RBAC, admission, audit's `impersonatedUser`);
        the store hears nothing of it. A watch queue is its consumer's: no watch is set up as another."""
        if call.req.verb == "watch":
            raise bad_request("a watch cannot be set up while impersonating: its queue is the caller's own")
        call.impersonator, call.user = call.user, impersonated(call.user, call.req.impersonate, self.authz.decide)
        call.msg.body.pop("impersonate", None)

    def forward(self, call: Call, body: dict, warnings: list[str] | None = None) -> None:
        """Hand the command to the store, in the next `commands` batch, with the client's reply address
        (audited: received now, complete when the store says how it ended)."""
        if warnings:
            body["warnings"] = warnings
        metrics.api_request(call.req, "", call.started)
        self.batches.add(call.msg, body, self._audit(call, None))

    def _queue_full(self, requests: list[Message]) -> None:
        for msg in requests:
            self.refuse(Call(msg, None), StatusError("TooManyRequests", "the store's command queue is full; "
                                                                        "try again later"))

    def call_store(self, call: Call, body: dict, step: str, done, as_self: bool = False) -> None:
        """A command of the apiserver's own on behalf of a request, in the requester's name (or its
        own); its id derives from the request's (none without one: no dedupe, and never an id shared
        with another request), shortened as a routing-key segment is when long."""
        call.steps += 1
        msg = call.msg
        sub_id = segment(f"{msg.message_id}.{step}.{call.steps}") if msg.message_id else None
        user = self.bus.user if as_self else msg.user_id
        self.rpc.call(self.names.store, "store", body, self.safe(call, done), self.settings.request_timeout_s,
                      answerers=store_answerers(self.names.cluster), message_id=sub_id,
                      persistent=self.settings.durable_commands, headers={USER_HEADER: user}, user_id=self.bus.user)

    def safe(self, call: Call, step):
        """A continuation of a request: a StatusError it raises is the answer; a bug is a 500."""
        def run(*args) -> None:
            try:
                step(*args)
            except StatusError as exc:
                self.refuse(call, exc)
            except Exception as exc:
                self.log.exception("apiserver.request_failed", message_id=call.msg.message_id)
                self.refuse(call, internal_error(exc))
        return run

    def finish(self, call: Call, reply: dict) -> None:
        reply.pop("more", None)
        status = reply.get("status") or {}
        self._audit(call, status.get("code", 0), status.get("reason"), status.get("message"))
        metrics.api_request(call.req, str(status.get("code", 200)), call.started)
        self.reply(call.msg, reply)
        call.msg.ack()
