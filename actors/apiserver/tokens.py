"""TokenRequest (`create serviceaccounts/token`): a ServiceAccount's credential, the bearer token the
gateway accepts as that account (`<broker user>:<password>`, the password tied to the account's uid, so
an account made again under the same name gets a new one). Asked by a person (`kubectl create token`)
or by a kubelet for a pod bound to its node (the node authorizer's guard: the pod must be), optionally
bound to a pod that runs as the account. The expiry is Kubernetes' (`expirationSeconds`, default an
hour, at least ten minutes) and is reported, but the broker knows one password per user: the credential
lasts until its ServiceAccount is deleted (docs/security.md)."""
from __future__ import annotations

import time

from api.errors import not_found
from api.status import Cause, StatusError, bad_request
from api.times import now, rfc3339
from bus import accounts
from bus.permissions import permissions
from bus.rpc import unwrap
from config.credentials import read_secret
from config.identities import password_for, sa_broker_user

TOKEN_REQUEST = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest"}
DEFAULT_SECONDS, MIN_SECONDS, MAX_SECONDS = 3600, 600, 1 << 32


def expiration(options: dict) -> int:
    """`spec.expirationSeconds` (an hour when unset), or Kubernetes' 422 naming it."""
    seconds = options.get("expirationSeconds")
    seconds = DEFAULT_SECONDS if seconds is None else seconds
    why = "may not specify a duration less than 10 minutes" if seconds < MIN_SECONDS else \
        "may not specify a duration larger than 2^32 seconds" if seconds > MAX_SECONDS else None
    if why is None:
        return seconds
    cause = Cause("spec.expirationSeconds", f"Invalid value: {seconds}: {why}")
    raise StatusError("Invalid", f'TokenRequest.authentication.k8s.io "" is invalid: {cause.field}: {cause.message}',
                      [cause], details={"kind": "TokenRequest", "group": "authentication.k8s.io"})


class Tokens:
    def serve_token(self, call) -> None:
        req = call.req
        seconds = expiration(req.options)
        pod = req.options.get("pod")
        if pod is None:
            if call.decision.node_guard is not None:
                raise StatusError("Forbidden", f'serviceaccounts "{req.name}" is forbidden: node requested token '
                                               f'not bound to a pod')
            self._issue(call, seconds)
            return
        get = {"verb": "get", "kind": "Pod", "namespace": req.namespace, "name": pod, "options": {}}
        self.call_store(call, get, "pod", lambda r: self._token_for(call, unwrap(r)["object"], seconds), as_self=True)

    def _token_for(self, call, pod: dict, seconds: int) -> None:
        req, node = call.req, call.decision.node_guard
        spec = pod.get("spec") or {}
        if node is not None and spec.get("nodeName") != node:
            raise StatusError("Forbidden", f'serviceaccounts "{req.name}" is forbidden: node requested token bound '
                                           f'to a pod scheduled on a different node')
        if spec.get("serviceAccountName") != req.name:  # none at all: a pod admission did not give one
            raise bad_request(f'cannot bind token for serviceaccount "{req.name}" to pod running with different '
                              f'serviceaccount name.')
        self._issue(call, seconds, pod)

    def _issue(self, call, seconds: int, pod: dict | None = None) -> None:
        req = call.req
        account = self.cache.get("ServiceAccount", req.namespace, req.name or "")
        if account is None:
            raise not_found("ServiceAccount", req.name or "")
        self.offload(lambda: self._ensure_sa_user(req.namespace, req.name, account["metadata"]["uid"]),
                     self.safe(call, lambda token: self._issued(call, token, seconds, pod)))

    def _issued(self, call, token: str | StatusError, seconds: int, pod: dict | None) -> None:
        if isinstance(token, StatusError):
            raise token
        spec: dict = {"audiences": list(call.req.options.get("audiences") or []), "expirationSeconds": seconds}
        if pod is not None:
            meta = pod.get("metadata") or {}
            spec["boundObjectRef"] = {"kind": "Pod", "apiVersion": "v1", "name": meta.get("name"), "uid": meta.get("uid")}
        self.finish(call, {"ok": True, "object": {
            **TOKEN_REQUEST, "metadata": {"name": call.req.name, "namespace": call.req.namespace,
                                          "creationTimestamp": now()},
            "spec": spec, "status": {"token": token, "expirationTimestamp": rfc3339(time.time() + seconds)}}})

    def _ensure_sa_user(self, namespace: str, name: str, uid: str) -> str | StatusError:
        """(On a worker thread.) The account's bearer token, its broker user made (or remade for a new uid)."""
        try:
            user = sa_broker_user(self.settings.cluster, namespace, name)
            password = password_for(read_secret(self.settings), user, salt=uid)
            if self._sa_users.get(user) != uid:
                accounts.ensure_user(self.settings.admin_url, user, password)
                accounts.apply(self.settings.admin_url, user, permissions(self.names, "sa", f"{namespace}.{name}"))
                self._sa_users[user] = uid
            return f"{user}:{password}"
        except (accounts.AdminError, SystemExit) as exc:
            return StatusError("ServiceUnavailable", f"cannot issue a token now: {exc}")
