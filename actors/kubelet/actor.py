"""The kubelet actor: one process for one node (or, in hollow mode, many simulated nodes), fed by
a local cache that binds only its nodes' keys."""
from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Callable

from actors.kubelet import podnet, sysctls, usage
from actors.kubelet.cri import cni, containerd, upkeep
from actors.kubelet.cri.client import RuntimeClient
from actors.kubelet.agent import NodeAgent
from actors.kubelet.logfiles import Limits
from actors.kubelet.logs import read_logs
from actors.kubelet.nodeinfo import RENEW_INTERVAL_S, NodeConfig
from actors.kubelet.runtimes.cri import CRIRuntime
from actors.kubelet.runtimes.process import ProcessRuntime
from actors.kubelet.runtimes.simulated import SimulatedRuntime
from api.misc import enforced_level
from actors.kubelet.portforward import PortForward
from actors.kubelet.streaming import Relays, no_containers, runtime_target, stream_url
from api.quantity import parse_quantity
from api.status import StatusError
from bus.codec import DecodeError
from bus.declare import QueueSpec
from bus.message import Message
from bus.messages import STREAM_VERBS, USER_HEADER, parse_request
from bus.permissions import kubelet_keys
from bus.topology import segment
from config.credentials import url_as, url_for_pod
from config.identities import broker_user_of
from config.settings import BROKER_SERVICE_PORT, Settings
from runtime import metrics
from runtime.actor import Actor, Consumer
from runtime.cache import Delta

SYNC_EVERY_S = 0.5


class Kubelet(Actor):
    singleton = True

    def __init__(self, settings: Settings, nodes: list[NodeConfig], name: str | None = None,
                 renew_interval: float = RENEW_INTERVAL_S, **kw: Any):
        self.name = _actor_name(name or f"kubelet.{nodes[0].name}")
        self.renew_interval = renew_interval
        super().__init__(settings, **kw)
        self.agents = {cfg.name: NodeAgent(cfg, self._runtime(cfg), self.ask, self.clock, self.offload,
                                           self._environment_for(cfg.runtime),
                                           self._pod_network(cfg))
                       for cfg in nodes}
        self._timers = False
        self.services: dict[str, dict[str, dict]] = {}  # namespace -> name -> Service (containers' env)
        self.namespaces: dict[str, dict | None] = {}  # name -> labels (Pod Security's level)
        for agent in self.agents.values():
            agent.services, agent.eviction_interval = self.services_in, settings.eviction_monitoring_interval
            if agent.runtime.name == "process":
                agent.admit = self._process_admits
            elif agent.runtime.name == "containerd":
                unsafe = tuple(n.strip() for n in settings.allowed_unsafe_sysctls.split(",") if n.strip())
                agent.admit = sysctls.Allowlist(unsafe).admit
        self.apiserver_user = broker_user_of(settings.cluster, "apiserver")
        self.relays = Relays(self.bus, self.names, {"portforward": PortForward})

    def _environment_for(self, runtime: str) -> Callable[[dict], dict[str, str]] | None:
        """What a pod's containers connect with: its ServiceAccount's broker user, so `Client()` just works;
        a container reaches the broker through `kubus-broker`'s ClusterIP (the gateway's relay), a host
        process where the kubelet does."""
        s = self.settings

        def environment(token: dict) -> dict[str, str]:
            user, _, password = token["busCredential"].partition(":")  # (the bearer token is a JWT: for the gateway)
            url = url_for_pod(s.amqp_url, user, password, s.broker_service_ip, BROKER_SERVICE_PORT) \
                if runtime == "cri" else url_as(s.amqp_url, user, password)
            return {"KUBUS_AMQP_URL": url, "KUBUS_CLUSTER": s.cluster}
        return environment if runtime in ("process", "cri") else None

    @property
    def connection_name(self) -> str:
        return self.name.replace(".", " ", 1)

    def _pod_network(self, cfg: NodeConfig) -> podnet.PodNetwork | None:
        """A namespace per pod where asked for and possible; else pods share the host's network."""
        if self.settings.pod_network != "namespaces" or cfg.runtime != "process":
            return None
        if not podnet.available():
            self.log.warning("kubelet.no_pod_namespaces", node=cfg.name, why="needs root and the `ip` command; "
                                                                             "pods share the host's network")
            return None
        s = self.settings
        return podnet.PodNetwork(s.cluster, s.cluster_cidr, s.cluster_dns, s.cluster_domain)

    def _runtime(self, cfg: NodeConfig):
        if cfg.runtime == "simulated":
            return SimulatedRuntime(self.clock)
        if cfg.runtime == "cri":
            return self._cri(cfg)
        limits = Limits(self.settings.container_log_max_size, self.settings.container_log_max_files)
        return ProcessRuntime(Path(self.settings.data_dir) / "kubelet" / cfg.name, limits)

    def _cri(self, cfg: NodeConfig) -> CRIRuntime:
        """The node's containerd (KUBUS_CRI_ENDPOINT's, or one it starts for itself) and the pod network's
        CNI configuration in it, once the node has its range (NodeAgent.node_changed)."""
        s = self.settings
        home = Path(s.data_dir) / "kubelet" / cfg.name / "cri"
        endpoint, down = s.cri_endpoint, ""
        if not endpoint:
            direct = tuple(url.strip() for url in s.registry_hosts.split(",") if url.strip())
            daemon = containerd.Containerd(home, s.sandbox_image, s.registry_url, direct, s.registry_fallback)
            endpoint, down = daemon.endpoint, containerd.available() or ""
            try:
                down or daemon.ensure()
            except RuntimeError as exc:
                down = str(exc)
            if down:
                self.log.warning("kubelet.no_runtime", node=cfg.name, why=down)
        network, layout = podnet.PodNetwork(s.cluster, s.cluster_cidr, s.cluster_dns, s.cluster_domain), \
            containerd.Layout(home.resolve())
        runtime = CRIRuntime(RuntimeClient(endpoint), cfg.name, layout.logs, _memory(cfg), network.dns_config,
                             cni.NodeNetwork(layout.cni_conf, layout.cni_data, network.bridge))
        runtime.down, runtime.pods_root = down, home.parent.resolve() / "pods"
        upkeep.start(runtime.client, cfg.name, Limits(s.container_log_max_size, s.container_log_max_files),
                     s.container_log_monitor_interval, None if s.cri_endpoint or down else daemon)
        return runtime

    def consumers(self) -> list[Consumer]:
        """The log service of each node: `logs` requests an apiserver authorized and put in
        `{c}.kubelet.<node>.logs`; gone with this process. A simulated node's containers have logs
        too (empty ones: they print nothing), so a client reading every pod's log is answered."""
        return [Consumer(QueueSpec(self.names.kubelet_logs_queue(node), durable=False, exclusive=True,
                                   auto_delete=True), lambda msg, node=node: self.on_logs(msg, node), 16)
                for node in self.agents]

    def on_logs(self, msg: Message, node: str) -> None:
        if msg.user_id != self.apiserver_user:  # the default exchange reaches this queue from anyone who answers
            self.dead_letter(msg, "forbidden", f"logs requests come from apiservers only, not {msg.user_id!r}")
            return
        try:
            req = parse_request(msg.body)
            if req.verb in STREAM_VERBS and self.agents[node].runtime.name == "simulated":
                raise no_containers(req, node)
            worker = next((w for a in self.agents.values() for w in a.workers.values()
                           if (w.pod["metadata"].get("namespace"), w.pod["metadata"]["name"]) ==
                           (req.namespace or "default", req.name)), None)
            if req.verb in STREAM_VERBS:
                self._open_stream(msg, req, worker)
                return
            reply = read_logs(worker, req.name or "", req.options)
        except DecodeError as exc:
            self.dead_letter(msg, exc.reason, exc.detail)
            return
        except StatusError as exc:
            reply = {"ok": False, "status": exc.to_dict()}
        self.reply(msg, reply)
        msg.ack()

    def _open_stream(self, msg: Message, req, worker) -> None:
        """exec/attach: the runtime's stream URL (a gRPC call, off this loop), then a relay (streaming.py)."""
        runtime_id = runtime_target(worker, req.name or "", req)
        requester = (msg.headers or {}).get(USER_HEADER)
        msg.ack()
        if req.options.get("probe"):
            self.reply(msg, {"ok": True})
            return

        def url() -> str | StatusError:
            try:
                return stream_url(worker.runtime, runtime_id, req)
            except Exception as exc:  # the runtime's refusal (CRIError) or its absence
                return StatusError("InternalError", f"unable to upgrade connection: {exc}")

        def got(answer) -> None:
            if isinstance(answer, StatusError):
                self.reply(msg, {"ok": False, "status": answer.to_dict()})
            else:
                self.log.info("kubelet.stream_open", verb=req.verb, pod=f"{req.namespace}/{req.name}",
                              user=requester)
                self.relays.start(msg, req, str(requester), worker.pod["spec"]["nodeName"], answer)
        self.offload(url, got)

    def informers(self) -> list[tuple[QueueSpec, Callable[[Delta], None]]]:
        events = self.names.events
        keys = list(kubelet_keys(tuple(self.agents)))
        spec = QueueSpec(self.names.actor_queue(self.name), tuple((events, k) for k in keys))
        return [(spec, self.on_delta)]

    def on_drain(self, done) -> None:
        """Stopping: the runtimes drop what is in hand (a container's stop waits out its pod's grace period;
        the containers outlive the kubelet, and the next one finishes what this one left)."""
        for agent in self.agents.values():
            agent.runtime.close()
        done()

    def on_synced(self) -> None:
        for agent in self.agents.values():
            agent.clean_orphans()
            agent.register()
        if not self._timers:
            self._timers = True
            self.every(SYNC_EVERY_S, self.sync)
            self.every(self.settings.metrics_resolution_s, self.send_usage)
            metrics.KUBELET_RUNNING_PODS.set_function(self.running_pods)  # counted when scraped
            for agent in self.agents.values():  # spread the renewals over the interval
                self.bus.call_later(random.uniform(0, self.renew_interval), lambda a=agent: self._renewing(a))

    def _renewing(self, agent: NodeAgent) -> None:
        """Renew now, then every interval: the registration's renewal is at most one interval old."""
        agent.renew_lease()
        self.every(self.renew_interval, agent.renew_lease)

    def on_delta(self, delta: Delta) -> None:
        if delta.kind == "Service":
            self._service_changed(delta)
            return
        if delta.kind == "Namespace":
            meta = delta.object["metadata"]
            self.namespaces[meta["name"]] = None if delta.type == "DELETED" else (meta.get("labels") or {})
            return
        if delta.kind == "Node" and delta.object["metadata"]["name"] in self.agents:
            self.agents[delta.object["metadata"]["name"]].node_changed(delta.object)
        if delta.kind != "Pod":
            return
        node = delta.object["spec"].get("nodeName")
        agent = self.agents.get(node) if node else None
        if agent is None:  # it left this node's view: the DELETED a selector watch reports
            agent = next((a for a in self.agents.values() if delta.object["metadata"]["uid"] in a.workers), None)
        if agent is not None:
            agent.pod_changed(delta.object, gone=delta.type == "DELETED")

    def _service_changed(self, delta: Delta) -> None:
        meta = delta.object["metadata"]
        services = self.services.setdefault(meta.get("namespace") or "", {})
        if delta.type == "DELETED":
            services.pop(meta["name"], None)
        else:
            services[meta["name"]] = delta.object

    def _process_admits(self, pod: dict) -> tuple[str, str] | None | str:
        """The process runtime is no wall (a container is a host process as root): it runs a pod only in
        a namespace whose Pod Security level is `privileged`. "wait" until the namespace is known."""
        namespace = pod["metadata"].get("namespace") or "default"
        if namespace not in self.namespaces:
            return "wait"
        level = enforced_level(self.namespaces[namespace])
        if level == "privileged":
            return None
        return "ProcessRuntime", (f"the process runtime runs a pod's containers as host processes, only for namespaces "
                                  f"whose Pod Security level is privileged; namespace {namespace!r} enforces "
                                  f"{level!r}: run it on a node whose runtime is cri")

    def services_in(self, namespace: str) -> list[dict]:
        return list(self.services.get(namespace, {}).values())

    def running_pods(self) -> int:
        """Pods with a running container (on the scrape's thread: copies, not live views)."""
        workers = [w for agent in list(self.agents.values()) for w in list(agent.workers.values())]
        return sum(not w.stopped() for w in workers)

    def sync(self) -> None:
        for agent in self.agents.values():
            agent.sync_all()

    def send_usage(self) -> None:
        for agent in self.agents.values():
            usage.publish(self, agent)


def _memory(cfg: NodeConfig) -> int:
    return int(parse_quantity(cfg.capacity.get("memory", "8Gi")))


def _actor_name(name: str) -> str:
    """`kubelet.<node>` with the node part shortened as routing keys are: its queues
    (`{c}.kubelet.<node>`, `.logs`, `.lock`) then fit AMQP's 255-byte names."""
    actor, _, node = name.partition(".")
    return f"{actor}.{segment(node)}" if node else actor
