"""The Python client: create, get, list, update, patch, delete, bind and watch over the bus.

Thread-safe: the connection lives on its own thread; every call hands a request to it and
waits on a future. `request_async` returns the future itself, for many calls in flight.
"""
from __future__ import annotations

import copy
import queue
import sys
import uuid
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import structlog

from api.registry import known, lookup
from api.status import StatusError
from bus.connection import Bus
from bus import side
from bus.declare import Bounds, QueueSpec
from bus.rpc import RETRYABLE, RpcClient, unwrap
from bus.topology import Names, routing_key
from config.answerers import api_answerers
from config.identities import kube_name_of
from config.settings import Settings, load_settings
from runtime.cache import Delta
from runtime.informer import Informer


log = structlog.get_logger("client")
TRANSIENT = RETRYABLE | {"Timeout"}  # what a re-declare may outlast
REDECLARE_S = 1.0


@dataclass(frozen=True)
class ListResult:
    items: list[dict]
    rev: int


def print_warning(text: str) -> None:
    """What kubectl (and client-go's default handler) does with an API warning."""
    print(f"Warning: {text}", file=sys.stderr)


class Client:
    def __init__(self, settings: Settings | None = None, name: str | None = None,
                 on_warning: Callable[[str], None] = print_warning):
        self.settings = settings or load_settings()
        self.namespace = "default"  # where a request that names none goes (kubectl's context namespace)
        self.on_warning = on_warning  # admission's warnings (Pod Security's `would violate …`)
        self.names = Names(self.settings.cluster)
        user = self.settings.amqp_user
        self.bus = Bus(self.settings.amqp_url, name or f"cli {user}", "kubus-client", self._on_ready, self._on_lost,
                       heartbeat=self.settings.heartbeat_s, quorum=self.settings.queue_type == "quorum")
        self.rpc = RpcClient(self.bus, self.settings.max_message_bytes, max_depth=self.settings.max_depth)
        self.bounds = Bounds.of(self.settings)  # every declarer of a queue declares it with the same limits
        self._watches: list[Informer] = []
        self.bus.start_thread()

    def _on_ready(self, bus: Bus) -> None:
        self.rpc.setup()
        for informer in self._watches:
            informer.start()

    def _on_lost(self) -> None:
        self.rpc.fail_all()

    def apiservers(self, timeout: float = 10) -> int:
        """How many apiservers consume this cluster's request queue."""
        fut: Future = Future()
        self.bus.call_soon(lambda: side.consumer_count(self.bus, self.names.apiserver_queue, fut.set_result))
        return fut.result(timeout) or 0

    def in_namespace(self, namespace: str) -> "Client":
        """This client, on its connection, with `namespace` where a request names none (a test's own
        namespace on a shared control plane); close this client, not the view."""
        view = copy.copy(self)
        view.namespace = namespace
        return view

    def close(self) -> None:
        self.bus.stop()
        self.bus.join(5)

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _ns(self, kind: str, namespace: str | None) -> str | None:
        """The namespace a request names: the kind's scope decides; a kind this process does not know (a
        custom one) is sent as asked, and the apiserver, which knows it, places it."""
        if not known(kind):
            return namespace
        return (namespace or self.namespace) if lookup(kind).namespaced else None

    # ---- requests -------------------------------------------------------------------------------
    def request_async(self, verb: str, kind: str, *, namespace: str | None = None, name: str | None = None,
                      obj: dict | None = None, resource_version: str | None = None,
                      options: dict | None = None, message_id: str | None = None,
                      timeout: float | None = None, impersonate: dict | None = None) -> Future:
        """Send one request; the future holds the reply dict or a StatusError. An answer that says
        "try again" (the connection dropped after the request left, a full queue, no apiserver) is
        retried with the same message id until the deadline: the store's dedupe gives one effect."""
        body = {"verb": verb, "kind": kind, "namespace": namespace, "name": name, "object": obj,
                "resourceVersion": resource_version, "options": options or {}}
        if impersonate is not None:  # `kubectl --as`: the apiserver decides whether the caller may
            body["impersonate"] = impersonate
        fut: Future = Future()

        def send() -> None:
            self.rpc.call(self.names.api, "apiserver", body, fut.set_result, timeout or self.settings.request_timeout_s,
                          answerers=api_answerers(self.names.cluster, verb), message_id=message_id,
                          persistent=self.settings.durable_commands, user_id=self.bus.user, retry=True)

        self.bus.run_on_loop(send)
        return fut

    def request(self, verb: str, kind: str, **kw: Any) -> dict:
        """The ok reply, or raise StatusError."""
        timeout = (kw.get("timeout") or self.settings.request_timeout_s) + 5
        reply = unwrap(self.request_async(verb, kind, **kw).result(timeout))
        for text in reply.get("warnings") or ():
            self.on_warning(text)
        return reply

    def create(self, obj: dict, namespace: str | None = None, **kw: Any) -> dict:
        """In `namespace`, else the object's own, else the client's (a request names its scope, contract 5)."""
        kind = obj.get("kind", "")
        ns = namespace or (obj.get("metadata") or {}).get("namespace")
        ns = self._ns(kind, ns)
        return self.request("create", kind, namespace=ns, obj=obj, **kw)["object"]

    def get(self, kind: str, name: str, namespace: str | None = None) -> dict:
        return self.request("get", kind, namespace=self._ns(kind, namespace), name=name)["object"]

    def list(self, kind: str, namespace: str | None = None, label_selector: str | None = None,
             field_selector: str | None = None) -> ListResult:
        options = {k: v for k, v in (("labelSelector", label_selector), ("fieldSelector", field_selector)) if v}
        reply = self.request("list", kind, namespace=namespace, options=options)
        return ListResult(reply["items"], reply["rev"])

    def update(self, obj: dict, **kw: Any) -> dict:
        meta = obj["metadata"]
        return self.request("update", obj["kind"], namespace=self._ns(obj["kind"], meta.get("namespace")),
                            name=meta.get("name"), obj=obj, resource_version=meta.get("resourceVersion"),
                            **kw)["object"]

    def update_status(self, obj: dict, **kw: Any) -> dict:
        meta = obj["metadata"]
        return self.request("updateStatus", obj["kind"], namespace=self._ns(obj["kind"], meta.get("namespace")),
                            name=meta.get("name"), obj=obj, resource_version=meta.get("resourceVersion"),
                            **kw)["object"]

    def patch(self, kind: str, name: str, patch: dict | list, namespace: str | None = None,
              subresource: str | None = None, patch_type: str | None = None) -> dict:
        """`patch_type`: merge (the default), json (a list of RFC 6902 operations) or strategic."""
        options = {k: v for k, v in (("subresource", subresource), ("patchType", patch_type)) if v}
        return self.request("patch", kind, namespace=self._ns(kind, namespace), name=name, obj=patch,
                            options=options)["object"]

    def delete(self, kind: str, name: str, namespace: str | None = None, grace_period: int | None = None,
               propagation: str | None = None, preconditions: dict | None = None) -> dict:
        options = {k: v for k, v in (("gracePeriodSeconds", grace_period), ("propagationPolicy", propagation),
                                     ("preconditions", preconditions)) if v is not None}
        return self.request("delete", kind, namespace=self._ns(kind, namespace), name=name, options=options)["object"]

    def bind(self, name: str, node: str, namespace: str | None = None, uid: str | None = None,
             resource_version: str | None = None) -> dict:
        namespace = namespace or self.namespace
        binding = {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name, "namespace": namespace},
                   "target": {"apiVersion": "v1", "kind": "Node", "name": node}}
        return self.request("bind", "Pod", namespace=namespace, name=name, obj=binding,
                            resource_version=resource_version, options={"uid": uid} if uid else {})["object"]

    def snapshot(self, keys: list[str]) -> ListResult:
        reply = self.request("snapshot", "*", options={"keys": keys})
        return ListResult(reply["items"], reply["rev"])

    def logs(self, name: str, namespace: str | None = None, container: str | None = None, tail: int | None = None,
             previous: bool = False, offset: int | None = None, limit_bytes: int | None = None,
             timestamps: bool = False, since_seconds: int | None = None) -> dict:
        """{text, offset, running} from the kubelet of the pod's node (an apiserver authorizes
        `get pods/log` and hands the request on)."""
        options = {k: v for k, v in (("container", container), ("tail", tail), ("previous", previous or None),
                                     ("offset", offset), ("limitBytes", limit_bytes), ("timestamps", timestamps or None),
                                     ("sinceSeconds", since_seconds)) if v is not None}
        return self.request("logs", "Pod", namespace=self._ns("Pod", namespace), name=name, options=options)

    # ---- watching -------------------------------------------------------------------------------
    def watch(self, kind: str, namespace: str | None = None, node: str | None = None,
              handler: Callable[[Delta], None] | None = None, **callbacks: Callable) -> "Watch":
        """Every current object as ADDED, then every change, in revision order. With `handler`,
        deltas go to it on the connection's thread instead of to the iterator (and `on_synced(rev)`,
        `on_failed(error)`, if given, are called there too)."""
        info = lookup(kind)
        ns = namespace if info.namespaced else None
        key = routing_key(info.kind, ns or "*", node or "*") if (ns or node) else f"{info.kind.lower()}.#"
        return Watch(self, self.watch_queue([key]), handler=handler, **callbacks)

    def watch_queue(self, keys: list[str], name: str | None = None) -> QueueSpec:
        """A watch queue bound to `keys`, named under this user's watch prefix (`name`: its own part,
        for a queue to reuse). An apiserver declares it, after RBAC allows every key (contract 5)."""
        queue = self.names.watch_prefix(self.identity) + (name or uuid.uuid4().hex[:12])
        return QueueSpec(queue, tuple((self.names.events, k) for k in keys), durable=False, auto_delete=True)

    @property
    def identity(self) -> str:
        """The Kubernetes user this client's broker user stands for."""
        return kube_name_of(self.names.cluster, self.bus.user) or self.bus.user

    def declare_watch(self, spec: QueueSpec, then: Callable[[], None], failed: Callable[[StatusError], None]) -> None:
        """Ask an apiserver to declare `spec` (an informer's declare step), on the connection's thread."""
        body = {"verb": "watch", "kind": "*", "options": {"keys": list(spec.binding_keys(self.names.events)),
                                                          "queue": spec.name}}

        def answered(reply) -> None:
            try:
                unwrap(reply)
            except StatusError as exc:
                failed(exc)
                return
            then()

        self.rpc.call(self.names.api, "apiserver", body, answered, self.settings.request_timeout_s,
                      answerers=api_answerers(self.names.cluster), user_id=self.bus.user, retry=True)


class Watch:
    """An iterator of Deltas fed by an informer on the client's connection."""

    def __init__(self, client: Client, spec: QueueSpec, prefetch: int = 256,
                 handler: Callable[[Delta], None] | None = None, on_synced: Callable[[int], None] | None = None,
                 on_failed: Callable[[StatusError], None] | None = None):
        self.client = client
        self.on_failed = on_failed
        self.events: queue.Queue[Delta] = queue.Queue()
        self.synced = queue.Queue()
        self.ever_synced = False
        self.redeclares = 0  # declares retried after a transient failure
        self.informer = Informer(client.bus, client.rpc, client.names, spec, handler or self.on_delta,
                                 owner="watch", max_bytes=client.settings.max_message_bytes,
                                 max_depth=client.settings.max_depth, bounds=client.bounds,
                                 timeout=client.settings.request_timeout_s, prefetch=prefetch,
                                 on_synced=lambda: self._synced(on_synced), may_publish_dead=False,
                                 declare=self._declare)
        client._watches.append(self.informer)
        client.bus.call_soon(self.informer.start)

    def on_delta(self, delta: Delta) -> None:
        """Runs on the connection's thread; queues the delta for the iterator."""
        self.events.put(delta)

    def _declare(self, spec: QueueSpec, then: Callable[[], None]) -> None:
        """Ask an apiserver for the queue. Once the watch has synced, a reconnect that finds no apiserver
        (or none in time) asks again a second later: only a refusal ends a watch that was running."""
        gen = self.informer.generation

        def failed(error: StatusError) -> None:
            if not self.ever_synced or error.reason not in TRANSIENT:
                self.fail(error)
            elif gen == self.informer.generation:
                self.redeclares += 1
                log.warning("watch.declare_retried", queue=spec.name, reason=error.reason)
                self.client.bus.call_later(REDECLARE_S, lambda: gen == self.informer.generation and
                                           self._declare(spec, then))
        self.client.declare_watch(spec, then, failed)

    def _synced(self, then: Callable[[int], None] | None) -> None:
        self.ever_synced = True
        self.synced.put(True)
        if then:
            then(self.informer.cache.rev)

    @property
    def rev(self) -> int:
        """The newest revision the watch has seen (events and bookmarks); read it on the connection's
        thread to know every event up to it was handed on."""
        return self.informer.cache.rev

    def fail(self, error: StatusError) -> None:
        """The watch was refused (or its access ended): the iterator raises `error`."""
        self.synced.put(error)
        self.events.put(error)
        if self.on_failed:
            self.on_failed(error)

    def wait_synced(self, timeout: float = 30) -> "Watch":
        if isinstance(error := self.synced.get(timeout=timeout), StatusError):
            raise error
        return self

    def next(self, timeout: float | None = None) -> Delta:
        """The next delta; raises queue.Empty after `timeout` seconds, or the StatusError that ended it."""
        return _delta(self.events.get(timeout=timeout))

    def __iter__(self) -> Iterator[Delta]:
        while True:
            yield _delta(self.events.get())

    def close(self) -> None:
        if self.informer in self.client._watches:
            self.client._watches.remove(self.informer)
        self.client.bus.call_soon(self.informer.stop)


def _delta(item: Delta | StatusError) -> Delta:
    if isinstance(item, StatusError):
        raise item
    return item
