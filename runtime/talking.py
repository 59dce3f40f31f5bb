"""An actor's words with the rest of the cluster: requests to the apiserver (asked, or told when nobody
waits), Events, and replies to those who asked it (the talking half of `runtime.actor`)."""
from __future__ import annotations

from typing import Any, Callable, Iterator

from api.events import event
from bus import codec
from bus.message import Message
from config.answerers import api_answerers
from runtime.replies import Reply


class Talking:
    """The talking methods of `Actor` (its `bus`, `rpc`, `names`, `settings`, `trusted`, `replies` and
    `_safe` are the actor's)."""

    def ask(self, body: dict[str, Any], done: Callable[[Any], None], retry: bool = True) -> None:
        """A request to the apiserver; `done` gets the reply dict, or the StatusError of a timeout. With
        `retry`, an answer that says "try again" (a full queue, no apiserver yet) is tried again until the
        request's timeout; without, it goes to `done`."""
        self.rpc.call(self.names.api, "apiserver", _request(body), self._safe(done, "actor.reply_handler_failed"),
                      self.settings.request_timeout_s, answerers=api_answerers(self.names.cluster),
                      user_id=self.bus.user, retry=retry)

    def tell(self, body: dict[str, Any]) -> None:
        """A request nobody waits for: no reply comes back."""
        self.rpc.tell(self.names.api, "apiserver", _request(body), ttl=self.settings.request_timeout_s,
                      user_id=self.bus.user)

    def record(self, obj: dict, reason: str, message: str, type_: str, component: str) -> None:
        """An Event about `obj`, told: a lost one costs nothing."""
        ev = event(obj, reason, message, type_, component)
        self.tell({"verb": "create", "kind": "Event", "namespace": ev["metadata"]["namespace"], "object": ev})

    def reply(self, msg: Message, body: dict[str, Any] | bytes) -> None:
        if msg.reply_to:
            self.send_replies([(msg.reply_to, msg.correlation_id, [body])])

    def send_replies(self, replies: list[tuple[str, str | None, list | Iterator[bytes]]]) -> None:
        """Each (reply_to, correlation_id, parts): whole replies to trusted nodes on this actor's own
        connection; the rest — a big read's parts, made as they go; any reply to a node not trusted
        yet — on its reply connection. Every reply carries this actor's broker user as its `user_id`
        (contract 2: a caller believes a reply only from the responder it asked)."""
        aside = []
        for reply_to, correlation_id, parts in replies:
            if isinstance(parts, list) and self.trusted.covers(reply_to):
                for part in parts:
                    self.bus.publish("", reply_to, part, type="reply", correlation_id=correlation_id,
                                     user_id=self.bus.user)  # the caller believes only its responder's
            elif isinstance(parts, list):
                encoded = [part if isinstance(part, bytes) else codec.encode(part) for part in parts]
                aside.append(Reply(reply_to, correlation_id, iter(encoded)))
            else:
                aside.append(Reply(reply_to, correlation_id, parts))
        self.replies.add(aside)


def _request(body: dict[str, Any]) -> dict[str, Any]:
    """A request body with every field contract 2 names."""
    return {"namespace": None, "name": None, "object": None, "resourceVersion": None, "options": {}, **body}
