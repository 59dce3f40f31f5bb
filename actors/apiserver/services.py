"""What the apiserver answers or hands on itself, after authorization: people's watches, `logs`
(to the kubelet of the pod's node), and the access reviews behind `auth can-i` and `whoami`
(tokens are `tokens.py`)."""
from __future__ import annotations

from actors.apiserver.attributes import of_request
from actors.apiserver.audit import user_info
from actors.apiserver.authz.rules import Attributes, UserInfo
from api import metrics as metrics_api
from api.status import StatusError, bad_request
from bus.messages import STREAM_VERBS, USER_HEADER
from bus.rpc import unwrap
from config.answerers import metrics_answerers


class Services:
    # ---- watch ------------------------------------------------------------------------------------
    def serve_watch(self, call) -> None:
        queue = call.req.options["queue"]
        if not self.watches.queue_allowed(call.user, queue):
            raise StatusError("Forbidden", f'a watch queue of user "{call.user.name}" is named '
                                           f'{self.names.watch_prefix(call.user.name)}<id>, not {queue}')
        self.watches.set_up(call.user, queue, call.req.options["keys"], of_request(call.user, call.req),
                            lambda: self.finish(call, {"ok": True, "queue": queue}),
                            lambda refusal: self.refuse(call, refusal))

    # ---- logs, exec, attach, portforward: on to the kubelet of the pod's node, which answers the client --
    def serve_logs(self, call) -> None:
        req = call.req
        get = {"verb": "get", "kind": "Pod", "namespace": req.namespace, "name": req.name, "options": {}}
        self.call_store(call, get, "pod", lambda r: self._logs_to(call, unwrap(r)["object"]), as_self=True)

    def _logs_to(self, call, pod: dict) -> None:
        node = (pod.get("spec") or {}).get("nodeName")
        if not node:
            raise bad_request(f'pod "{call.req.name}" is not scheduled to a node yet')
        msg = call.msg

        def unserved(why: str) -> None:
            verb = call.req.verb
            refusal = StatusError("ServiceUnavailable", f'the kubelet of node "{node}" does not serve {verb} ({why})') \
                if verb == "logs" else bad_request(f'pod "{call.req.name}" runs on node "{node}", whose kubelet runs '
                                                   f'no containers (a simulated or hollow node): {verb} needs a cri node')
            self.reply(msg, {"ok": False, "status": refusal.to_dict()})

        complete = self._audit(call, None, None, None)
        if complete is not None and call.req.verb in STREAM_VERBS:
            complete(101, None, None)  # the stream is the kubelet's from here: Kubernetes audits the upgrade, 101
        self.bus.publish("", self.names.kubelet_logs_queue(node), {**msg.body, "kind": "Pod"}, type="request",
                         message_id=msg.message_id, correlation_id=msg.correlation_id, reply_to=msg.reply_to,
                         mandatory=True, user_id=self.bus.user, expiration_s=self.settings.request_timeout_s,
                         headers={USER_HEADER: msg.user_id},  # whose frames a stream session believes
                         on_return=unserved)
        msg.ack()

    # ---- metrics.k8s.io: read from the metrics actor, answered as this apiserver's own reply ---------
    def serve_metrics(self, call) -> None:
        req = call.req
        if req.verb not in ("get", "list"):
            raise StatusError("MethodNotAllowed", "the server does not allow this method on the requested resource")
        resource = metrics_api.KINDS[req.kind][0]

        def answered(reply) -> None:
            if isinstance(reply, StatusError):  # no metrics actor answered in time: as kubectl words the
                # aggregator's bare 503 (client-go's generic message names the HTTP method, GET for a list too)
                reply = StatusError("ServiceUnavailable", f"the server is currently unable to handle the request "
                                                          f"(get {resource}.{metrics_api.GROUP})")
                return self.refuse(call, reply)
            if req.kind == "PodMetrics" and reply.get("ok"):
                return self._vouch(call, reply)
            self.finish(call, reply)

        body = {"verb": req.verb, "kind": req.kind, "namespace": req.namespace, "name": req.name,
                "options": {k: v for k, v in req.options.items() if k in ("labelSelector", "fieldSelector")}}
        self.rpc.call("", self.names.actor_queue(f"controller.{metrics_api.SERVICE}"), body, answered,
                      self.settings.request_timeout_s, answerers=metrics_answerers(self.names.cluster),
                      user_id=self.bus.user)

    def _vouch(self, call, reply: dict) -> None:
        """PodMetrics only of pods bound to the node that reported them (the store's pods, read as itself)."""
        one = {"fieldSelector": f"metadata.name={call.req.name}"} if "object" in reply else {}
        listing = {"verb": "list", "kind": "Pod", "namespace": call.req.namespace, "options": one}

        def listed(pods) -> None:
            pods = unwrap(pods)["items"]
            if "object" in reply:
                kept = metrics_api.vouched([reply["object"]], pods)
                if not kept:
                    raise StatusError("NotFound", metrics_api.not_found("PodMetrics", call.req.name or ""))
                return self.finish(call, {"ok": True, "object": kept[0]})
            self.finish(call, {**reply, "items": metrics_api.vouched(reply.get("items") or [], pods)})
        self.call_store(call, listing, "pods", listed, as_self=True)

    # ---- access reviews --------------------------------------------------------------------------
    def review(self, call) -> None:
        kind, obj = call.req.kind, call.req.object or {}
        if kind == "SelfSubjectReview":
            status = {"userInfo": user_info(call.user)}
        else:
            spec = obj.get("spec") or {}
            user = call.user if kind == "SelfSubjectAccessReview" else \
                UserInfo(str(spec.get("user") or ""), tuple(spec.get("groups") or ()))
            decision = self.authz.decide(_review_attributes(user, spec))
            status = {"allowed": decision.allowed, **({"reason": decision.reason} if decision.reason else {})}
        group = "authentication.k8s.io" if kind == "SelfSubjectReview" else "authorization.k8s.io"
        self.finish(call, {"ok": True, "object": {"apiVersion": f"{group}/v1", "kind": kind, "metadata": {},
                                                  "spec": obj.get("spec") or {}, "status": status}})


def _review_attributes(user: UserInfo, spec: dict) -> Attributes:
    ra, nra = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    if isinstance(ra, dict):
        return Attributes(user, str(ra.get("verb") or ""), str(ra.get("resource") or ""), str(ra.get("group") or ""),
                          str(ra.get("subresource") or ""), str(ra.get("namespace") or ""), str(ra.get("name") or ""))
    if isinstance(nra, dict):
        return Attributes(user, str(nra.get("verb") or ""), path=str(nra.get("path") or ""))
    raise bad_request("spec.resourceAttributes or spec.nonResourceAttributes is required")
