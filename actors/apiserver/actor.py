"""The apiserver: the gate every request passes. Identity from the broker-validated `user_id`,
authorization, admission (defaults, validation), then the command to the store, which answers
the client directly (the request's reply_to and correlation id travel with the command)."""
from __future__ import annotations

from typing import Any

from actors.apiserver.authz import authorize
from actors.apiserver.patch import merge_patch
from api.admission import admit, admit_status
from api.registry import lookup
from api.status import StatusError, bad_request
from bus.codec import DecodeError
from bus.declare import QueueSpec, apiserver_queue, store_queue
from bus.message import Message
from bus.messages import Request, parse_request
from bus.rpc import unwrap
from runtime.actor import Actor, Consumer

PATCH_RETRIES = 5
PROPAGATION = (None, "Orphan", "Background", "Foreground")


class ApiServer(Actor):
    name = "apiserver"

    def consumers(self) -> list[Consumer]:
        return [Consumer(apiserver_queue(self.names), self.on_request, self.settings.prefetch)]

    def declarations(self) -> list[QueueSpec]:
        return [store_queue(self.names)]  # commands wait there while no store runs

    def on_request(self, msg: Message) -> None:
        try:
            req = parse_request(msg.body)
        except DecodeError as exc:
            self.dead_letter(msg, exc.reason, exc.detail)
            return
        try:
            self._admit_and_forward(msg, req)
        except StatusError as exc:
            self.log.info("apiserver.refused", verb=req.verb, kind=req.kind, name=req.name,
                          user=msg.user_id, reason=exc.reason, message=exc.message[:200])
            self.reply(msg, {"ok": False, "status": exc.to_dict()})
            msg.ack()

    def _admit_and_forward(self, msg: Message, req: Request) -> None:
        if not msg.user_id:
            raise StatusError("Unauthorized", "the request carries no user_id: the broker could not vouch "
                                              "for who sent it")
        authorize(msg.user_id, req)
        body = dict(msg.body)
        if req.verb == "snapshot":  # spans kinds: the binding keys choose
            self._forward(msg, body)
            return
        info = lookup(req.kind)
        body["kind"] = info.kind
        if req.verb in ("create", "update"):
            body["object"] = admit(info.kind, req.object, req.namespace)
        elif req.verb == "updateStatus":
            body["object"] = admit_status(info.kind, req.object)
        elif req.verb == "delete":
            _check_delete_options(req.options)
        elif req.verb == "patch":
            self._patch(msg, req, info.kind, attempt=1)
            return
        self._forward(msg, body)

    def _forward(self, msg: Message, body: dict[str, Any]) -> None:
        """Hand the command to the store with the client's reply address; ack once the broker has it."""
        self.bus.publish(
            self.names.store, "store", body, type="command", message_id=msg.message_id,
            correlation_id=msg.correlation_id, reply_to=msg.reply_to,
            persistent=self.settings.durable_commands, headers={"x-kubus-user": msg.user_id},
            expiration_s=msg.expiration_s, on_confirm=lambda ok: msg.ack() if ok else msg.requeue())

    # ---- patch: get, merge, admit, update with the read resourceVersion; retry on Conflict ----
    def _patch(self, msg: Message, req: Request, kind: str, attempt: int) -> None:
        get = {"verb": "get", "kind": kind, "namespace": req.namespace, "name": req.name, "options": {}}
        self._call(get, f"{msg.message_id}.get.{attempt}", lambda r: self._patch_got(msg, req, kind, attempt, r))

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
        self._call(update, f"{msg.message_id}.update.{attempt}",
                   lambda r: self._patch_done(msg, req, kind, attempt, r))

    def _patch_done(self, msg: Message, req: Request, kind: str, attempt: int, reply) -> None:
        if isinstance(reply, dict) and not reply.get("ok") and reply["status"]["reason"] == "Conflict" \
                and attempt < PATCH_RETRIES:
            self._patch(msg, req, kind, attempt + 1)
            return
        self._finish(msg, reply if isinstance(reply, dict) else {"ok": False, "status": reply.to_dict()})

    def _call(self, body: dict, message_id: str, done) -> None:
        self.rpc.call(self.names.store, "store", body, done, self.settings.request_timeout_s,
                      message_id=message_id, persistent=self.settings.durable_commands)

    def _finish(self, msg: Message, reply: dict) -> None:
        reply.pop("more", None)
        self.reply(msg, reply)
        msg.ack()


def _check_delete_options(options: dict) -> None:
    grace = options.get("gracePeriodSeconds")
    if grace is not None and (not isinstance(grace, int) or isinstance(grace, bool)):
        raise bad_request("gracePeriodSeconds must be an integer")
    if options.get("propagationPolicy") not in PROPAGATION:
        raise bad_request(f"propagationPolicy {options.get('propagationPolicy')!r} is not one of Orphan, "
                          f"Background, Foreground")
