"""A pod's bound ServiceAccount token, as the kubelet's token manager keeps it: asked for (a TokenRequest
bound to the pod, for the audience and lifetime its projected serviceAccountToken source names) before
the containers start, and asked for again once 80% of its life has passed (or after a failure, soon);
the projected volume's `token` file follows it."""
from __future__ import annotations

from dataclasses import dataclass

import structlog

log = structlog.get_logger("kubelet")

DEFAULT_SECONDS = 3607  # the kube-api-access volume's
RETRY_S = 5.0  # after a refused or unanswered request
TOKEN_VOLUME_PREFIX = "kube-api-access-"  # the ServiceAccount admission plugin's volume


def projection(pod: dict) -> dict | None:
    """The pod's (first) serviceAccountToken projection, if any."""
    for volume in (pod.get("spec") or {}).get("volumes") or []:
        for source in (volume.get("projected") or {}).get("sources") or []:
            if source.get("serviceAccountToken") is not None:
                return source["serviceAccountToken"]
    return None


def wants_bus_credential(pod: dict) -> bool:
    """Whether the pod's containers get its account's broker credential: as the token volume, unless
    automountServiceAccountToken is false on the pod or (the pod saying nothing) on its account, which
    the ServiceAccount admission plugin's `kube-api-access-` volume tells: it adds one exactly then."""
    spec = pod.get("spec") or {}
    if spec.get("automountServiceAccountToken") is not None:
        return spec["automountServiceAccountToken"] is True
    return any(v.get("name", "").startswith(TOKEN_VOLUME_PREFIX) for v in spec.get("volumes") or [])


def request_options(pod: dict) -> dict:
    """The TokenRequest's options: bound to the pod, with its projection's audience and lifetime."""
    wanted = projection(pod) or {}
    options = {"pod": pod["metadata"]["name"], "expirationSeconds": wanted.get("expirationSeconds") or DEFAULT_SECONDS}
    if wanted.get("audience"):
        options["audiences"] = [wanted["audience"]]
    return options


@dataclass
class PodToken:
    value: str = ""
    refresh_at: float = float("inf")  # when to ask again (inf: never: no token wanted)
    asking: bool = False

    def due(self, now: float) -> bool:
        return not self.asking and now >= self.refresh_at

    def got(self, token: str, seconds: float, now: float) -> None:
        """A token lasting `seconds` from `now`: asked again at 80% of that."""
        self.value, self.asking, self.refresh_at = token, False, now + 0.8 * seconds

    def failed(self, now: float) -> None:
        self.asking, self.refresh_at = False, now + RETRY_S


class TokenFetching:
    """NodeAgent's part: a pod's token and, unless automount is off, its account's bus credentials."""

    def _fetch_credentials(self, worker, refresh: bool = False) -> None:
        """Ask for the pod's token (the node authorizer allows it for pods bound here); the first time,
        its containers wait for the answer. Without one (no such account, no token service) they start
        with no bus credentials, and a token volume waits, asked again soon."""
        spec, meta = worker.pod["spec"], worker.pod["metadata"]
        account = spec.get("serviceAccountName")  # none: a mirror pod, which runs as no account
        wants_env = wants_bus_credential(worker.pod)
        if self.credentials is None or not account or not (wants_env or projection(worker.pod)):
            return
        if not refresh:
            worker.credentials = None
        worker.token.asking, asked = True, self.clock()

        def done(reply) -> None:
            if isinstance(reply, dict) and reply.get("ok"):
                answer = reply["object"]
                worker.credentials = self.credentials(answer["status"]) if wants_env else {}
                worker.token.got(answer["status"]["token"], answer["spec"].get("expirationSeconds") or
                                 DEFAULT_SECONDS, asked)
                if refresh and worker.volumes is not None:
                    worker.volumes.refresh(worker.pod, worker.objects.view(), worker.facts())
            else:
                worker.credentials = {} if worker.credentials is None else worker.credentials
                worker.token.failed(self.clock())
                why = reply["status"]["message"] if isinstance(reply, dict) else str(reply)
                log.warning("kubelet.no_credentials", node=self.cfg.name, pod=worker.key, account=account, why=why)
            self.sync_pod(worker)

        self.call({"verb": "token", "kind": "ServiceAccount", "namespace": meta.get("namespace"), "name": account,
                   "options": request_options(worker.pod)}, done)
