"""The ConfigMaps, Secrets and claims (with their bound volumes) a pod references, as the kubelet last
fetched them: a `get` each through the apiserver as the node (the node authorizer lets it read what a pod bound here references), sent
from the loop and answered on it (never waited for). Fetched when the pod comes, again when a
container could not be configured or exited (its next start sees what changed meanwhile), and, for
a pod whose volumes project them (mounted files follow edits), every REFRESH_S on its syncs."""
from __future__ import annotations

from typing import Any, Callable

import structlog

from api.podrefs import CLAIM, pod_refs

log = structlog.get_logger("kubelet")
REFRESH_S = 5.0
VOLUME = "PersistentVolume"
Call = Callable[[dict, Callable[[Any], None]], None]


class PodObjects:
    def __init__(self, pod: dict, clock: Callable[[], float], volumes: bool = True):
        """`volumes`: the runtime mounts them (cri); else what they project is never fetched (every pod's
        kube-api-access volume names kube-root-ca.crt: a hollow node's thousands of pods need none of it)."""
        self.namespace = pod["metadata"].get("namespace") or "default"
        try:
            self.refs = sorted(pod_refs(pod, volumes))
        except (AttributeError, TypeError):  # not objects where validation wants them: nothing to fetch
            self.refs = []
        self.clock = clock
        self.found: dict[tuple[str, str], dict | None] = {}  # None: not found
        self.errors: dict[tuple[str, str], str] = {}  # why a get failed otherwise (Forbidden, timeout)
        self.pending = 0
        self.fetched_at: float | None = None if self.refs else 0.0

    @property
    def ready(self) -> bool:
        """Every reference has been asked about once."""
        return self.fetched_at is not None

    def view(self) -> dict[tuple[str, str], dict | str | None]:
        """Each reference's object (None: not found), or why its get failed."""
        return {**self.found, **self.errors}

    def stale(self) -> None:
        """Fetch again on the next refresh, whatever the time."""
        if self.fetched_at is not None:
            self.fetched_at = -1e18

    def refresh(self, call: Call, done: Callable[[], None], periodic: bool = False) -> None:
        """Fetch every reference if due (never fetched, stale, or `periodic` and REFRESH_S old); `done`
        runs when the last answer came."""
        age = None if self.fetched_at is None else self.clock() - self.fetched_at
        due = age is None or age >= (REFRESH_S if periodic else 1e17)
        if not self.refs or self.pending or not due:
            return
        self.pending = len(self.refs)
        for kind, name in self.refs:
            self._get(call, kind, name, done)

    def _get(self, call: Call, kind: str, name: str, done: Callable[[], None]) -> None:
        namespace = None if kind == VOLUME else self.namespace
        call({"verb": "get", "kind": kind, "namespace": namespace, "name": name},
             lambda reply, ref=(kind, name): self._got(call, ref, reply, done))

    def _got(self, call: Call, ref: tuple[str, str], reply: Any, done: Callable[[], None]) -> None:
        if isinstance(reply, dict) and reply.get("ok"):
            self.found[ref] = reply["object"]
            self.errors.pop(ref, None)
            volume = (reply["object"].get("spec") or {}).get("volumeName") if ref[0] == CLAIM else None
            if volume:  # a bound claim's volume, read in the same round
                self.pending += 1
                self._get(call, VOLUME, volume, done)
        elif isinstance(reply, dict) and (reply.get("status") or {}).get("reason") == "NotFound":
            self.found[ref] = None
            self.errors.pop(ref, None)
        else:
            why = (reply.get("status") or {}).get("message") if isinstance(reply, dict) else str(reply)
            self.errors[ref] = why or "no answer"
            log.info("kubelet.fetch_failed", kind=ref[0], namespace=self.namespace, name=ref[1], why=self.errors[ref])
        self.pending -= 1
        if self.pending == 0:
            self.fetched_at = self.clock()
            done()
