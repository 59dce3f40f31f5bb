"""The metrics actor (metrics-server's part in kubus): one active instance keeps, in memory, the last two points
of every node's and container's usage the kubelets send (`sample` messages, one per node each resolution,
through the default exchange to `{c}.controller.metrics-server`), and answers the apiservers' reads of
NodeMetrics and PodMetrics from them (api/metrics.py makes the objects). Nothing reaches the store: a
restarted or promoted instance serves again after two resolutions, as metrics-server does."""
from __future__ import annotations

from typing import Any

from api import metrics
from api.metrics import Point, Series
from api.status import StatusError
from bus.declare import QueueSpec
from bus.message import Message
from config.answerers import node_user_prefix
from config.identities import broker_user_of
from runtime.actor import Actor, Consumer

NAME = f"controller.{metrics.SERVICE}"  # the broker's controller role: its queue and lock
PREFETCH = 64


class MetricsServer(Actor):
    name = NAME
    singleton = True

    def __init__(self, settings, **kw: Any):
        super().__init__(settings, **kw)
        self.apiserver_user = broker_user_of(settings.cluster, "apiserver")
        self.kubelet_users = (node_user_prefix(settings.cluster), broker_user_of(settings.cluster, "hollow"))
        self._reset()

    def _reset(self) -> None:
        self.nodes: dict[str, Series] = {}
        self.node_labels: dict[str, dict] = {}
        self.pods: dict[tuple[str, str], dict] = {}  # (namespace, name) -> {uid, node, labels, containers}

    def on_active(self) -> None:
        self._reset()

    def consumers(self) -> list[Consumer]:
        spec = QueueSpec(self.names.actor_queue(self.name), single_active=True)
        return [Consumer(spec, self.on_message, PREFETCH)]

    def on_message(self, msg: Message) -> None:
        if msg.type == "sample" and self._reports_for(msg.user_id, msg.body):
            if not metrics.valid_sample(msg.body):
                self.dead_letter(msg, "invalid", f"a sample from {msg.user_id!r} that no kubelet makes")
                return
            self.take(msg.body)
        elif msg.type == "request" and msg.user_id == self.apiserver_user:
            try:
                self.reply(msg, self.answer(msg.body))
            except StatusError as exc:
                self.reply(msg, {"ok": False, "status": exc.to_dict()})
        else:
            self.dead_letter(msg, "forbidden", f"{msg.type!r} from {msg.user_id!r}: samples come from kubelets, "
                                               "each of its own node; requests from apiservers")
            return
        msg.ack()

    # ---- samples ---------------------------------------------------------------------------------
    def _reports_for(self, user: object, body: object) -> bool:
        """A kubelet speaks for its own node only (a hollow kubelet for the many it simulates): a sample
        naming another node would be that node's usage and pods, and would add a node per name."""
        if not isinstance(user, str) or not isinstance(body, dict):
            return False
        node_prefix, hollow = self.kubelet_users
        return user == hollow or (user.startswith(node_prefix) and body.get("node") == user[len(node_prefix):])

    def take(self, body: dict) -> None:
        node, at = body["node"], float(body["time"])
        self.nodes.setdefault(node, Series()).add(Point(at, int(body["cpu"]), int(body["memory"])))
        self.node_labels[node] = body.get("labels") or {}
        seen = set()
        for pod in body.get("pods") or []:
            key = (pod["namespace"], pod["name"])
            seen.add(key)
            kept = self.pods.get(key)
            if kept is None or kept["uid"] != pod["uid"]:
                kept = self.pods[key] = {"uid": pod["uid"], "node": node, "containers": {}}
            kept["labels"] = pod.get("labels") or {}
            reported = {c["name"] for c in pod["containers"]}
            kept["containers"] = {n: s for n, s in kept["containers"].items() if n in reported}
            for c in pod["containers"]:
                kept["containers"].setdefault(c["name"], Series()).add(Point(at, int(c["cpu"]), int(c["memory"])))
        for key in [k for k, p in self.pods.items() if p["node"] == node and k not in seen]:
            del self.pods[key]  # gone from its node

    # ---- reads -----------------------------------------------------------------------------------
    def answer(self, body: dict) -> dict:
        kind, verb, options = body.get("kind"), body.get("verb"), body.get("options") or {}
        namespace, name = body.get("namespace"), body.get("name")
        if kind == "NodeMetrics":
            items = [m for n, s in sorted(self.nodes.items())
                     if (m := metrics.node_metrics(n, s, self.node_labels.get(n, {}))) is not None]
        else:
            items = [{**m, metrics.ORIGIN: {"node": p["node"], "uid": p["uid"]}}
                     for (ns, n), p in sorted(self.pods.items()) if not namespace or ns == namespace
                     if (m := metrics.pod_metrics(ns, n, p["containers"], p["labels"])) is not None]
        if verb == "get":
            found = next((i for i in items if i["metadata"]["name"] == name), None)
            if found is None:
                raise StatusError("NotFound", metrics.not_found(kind, name or ""))
            return {"ok": True, "object": found}
        return {"ok": True, "items": metrics.selected(items, options), "rev": 0}
