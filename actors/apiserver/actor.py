"""The apiserver: the gate every request passes. Identity from the broker-validated `user_id`,
authorization, admission (defaults, validation), then the command to the store, which answers
the client directly (the request's reply_to and correlation id travel with the command)."""
from __future__ import annotations

from typing import Any

from actors.apiserver.authz import authorize
from actors.apiserver.batches import CommandBatches
from actors.apiserver.patch import merge_patch
from api.admission import admit, admit_status
from api.registry import lookup
from api.status import StatusError, bad_request, internal_error, too_large
from bus.declare import QueueSpec, apiserver_queue, store_queue
from bus.message import Message
from bus.messages import USER_HEADER, Request, parse_request, valid_reply_to
from bus.rpc import unwrap
from bus.topology import segment
from config.settings import Settings
from runtime.actor import Actor, Consumer

PATCH_RETRIES = 5
OBJECT_VERBS = frozenset(("create", "update", "updateStatus", "patch"))
REQUEST_ENVELOPE = 4096  # a request's fields besides its object


class ApiServer(Actor):
    name = "apiserver"

    def __init__(self, settings: Settings, **kw):
        super().__init__(settings, **kw)
        self.batches = CommandBatches(self.bus, self.names.store, settings.max_message_bytes,
                                      settings.durable_commands, self._queue_full)

    def consumers(self) -> list[Consumer]:
        return [Consumer(apiserver_queue(self.names, self.bounds), self.on_request, self.settings.prefetch)]

    def declarations(self) -> list[QueueSpec]:
        return [store_queue(self.names, self.bounds)]  # commands wait there while no store runs

    def on_request(self, msg: Message) -> None:
        if not valid_reply_to(msg.reply_to):
            self.dead_letter(msg, "reply-to", f"{msg.reply_to!r} is not a direct reply-to address")
            return
        try:
            req = parse_request(msg.body)
        except StatusError as exc:
            self._malformed(msg, exc)
            return
        try:
            self._admit_and_forward(msg, req)
        except StatusError as exc:
            self._refuse(msg, exc)
        except Exception as exc:  # a bug met by one request: answer it, keep serving the rest
            self.log.exception("apiserver.request_failed", message_id=msg.message_id, user=msg.user_id)
            self._refuse(msg, internal_error(exc))

    def _malformed(self, msg: Message, exc: StatusError) -> None:
        """A request that is not one: answered 400 when it can be, else dead-lettered with the reason."""
        if msg.reply_to:
            self._refuse(msg, exc)
        else:
            self.dead_letter(msg, "invalid", exc.message)

    def _refuse(self, msg: Message, exc: StatusError) -> None:
        body = msg.body if isinstance(msg.body, dict) else {}
        self.log.info("apiserver.refused", verb=str(body.get("verb"))[:32], kind=str(body.get("kind"))[:64],
                      name=str(body.get("name"))[:253], user=msg.user_id, reason=exc.reason, message=exc.message[:200])
        self.reply(msg, {"ok": False, "status": exc.to_dict()})
        msg.ack()

    def _admit_and_forward(self, msg: Message, req: Request) -> None:
        if not msg.user_id:
            raise StatusError("Unauthorized", "the request carries no user_id: the broker could not vouch "
                                              "for who sent it")
        authorize(msg.user_id, req)
        if req.verb in OBJECT_VERBS and len(msg.raw) > self.settings.max_object_bytes + REQUEST_ENVELOPE:
            raise too_large(self.settings.max_object_bytes)
        body = dict(msg.body)
        if req.verb == "snapshot":  # spans kinds: the binding keys choose
            self._forward(msg, body)
            return
        info = lookup(req.kind)
        body["kind"] = info.kind
        if req.verb in ("update", "updateStatus"):
            _check_name(req)
        if req.verb in ("create", "update"):
            body["object"] = admit(info.kind, req.object, req.namespace)
        elif req.verb == "updateStatus":
            body["object"] = admit_status(info.kind, req.object)
        elif req.verb == "patch":
            self._patch(msg, req, info.kind, attempt=1)
            return
        self._forward(msg, body)

    def _forward(self, msg: Message, body: dict[str, Any]) -> None:
        """Hand the command to the store, in the next `commands` batch, with the client's reply address."""
        self.batches.add(msg, body)

    def _queue_full(self, requests: list[Message]) -> None:
        for msg in requests:
            self._refuse(msg, StatusError("TooManyRequests", "the store's command queue is full; try again later"))

    # ---- patch: get, merge, admit, update with the read resourceVersion; retry on Conflict ----
    def _patch(self, msg: Message, req: Request, kind: str, attempt: int) -> None:
        get = {"verb": "get", "kind": kind, "namespace": req.namespace, "name": req.name, "options": {}}
        self._call(msg, get, "get", attempt, lambda r: self._patch_got(msg, req, kind, attempt, r))

    def _patch_got(self, msg: Message, req: Request, kind: str, attempt: int, reply) -> None:
        try:
            current = unwrap(reply)["object"]
            if not isinstance(req.object, dict):
                raise bad_request("patch needs a merge patch object")
            status_only = req.options.get("subresource") == "status"
            patched = admit(kind, merge_patch(current, req.object), req.namespace)
        except StatusError as exc:
            self._finish(msg, {"ok": False, "status": exc.to_dict()})
            return
        update = {"verb": "updateStatus" if status_only else "update", "kind": kind, "namespace": req.namespace,
                  "name": req.name, "object": patched, "resourceVersion": current["metadata"]["resourceVersion"],
                  "options": {}}
        self._call(msg, update, "update", attempt, lambda r: self._patch_done(msg, req, kind, attempt, r))

    def _patch_done(self, msg: Message, req: Request, kind: str, attempt: int, reply) -> None:
        if isinstance(reply, dict) and not reply.get("ok") and reply["status"]["reason"] == "Conflict" \
                and attempt < PATCH_RETRIES:
            self._patch(msg, req, kind, attempt + 1)
            return
        self._finish(msg, reply if isinstance(reply, dict) else {"ok": False, "status": reply.to_dict()})

    def _call(self, msg: Message, body: dict, step: str, attempt: int, done) -> None:
        """A command of the patch's own, in the requester's name; its id derives from the request's
        (none without one: no dedupe, and never an id shared with another request), shortened as a
        routing-key segment is when long, so it fits an AMQP message id."""
        sub_id = segment(f"{msg.message_id}.{step}.{attempt}") if msg.message_id else None
        self.rpc.call(self.names.store, "store", body, done, self.settings.request_timeout_s,
                      message_id=sub_id, persistent=self.settings.durable_commands,
                      headers={USER_HEADER: msg.user_id})

    def _finish(self, msg: Message, reply: dict) -> None:
        reply.pop("more", None)
        self.reply(msg, reply)
        msg.ack()


def _check_name(req: Request) -> None:
    meta = (req.object or {}).get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    if req.name and name and name != req.name:
        raise bad_request(f"the name of the object ({name}) does not match the name on the URL ({req.name})")
