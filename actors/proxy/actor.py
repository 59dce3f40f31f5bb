"""The service proxy actor (kube-proxy's job): a cache of Services and EndpointSlices fed by events; on
every change the forwarding table is built again and handed at once (kube-proxy batches for at most
its 1 s minSyncPeriod) to the mode's forwarder — nftables rules when pods have network namespaces of
their own (`nftables.py`), else the userspace forwarder pods sharing the host's network need
(`userspace.py`). One runs per host: every node's pods share the host's addresses or its bridge."""
from __future__ import annotations

import structlog

from actors.proxy import nftables, table
from actors.proxy.localroute import LocalRoute
from actors.proxy.nftables import NftTable
from actors.proxy.userspace import Forwarder
from runtime.cache import Delta
from runtime.follower import Follower

KINDS = ("Service", "EndpointSlice")


class ProxyActor(Follower):
    name = "proxy"
    kinds = KINDS

    def __init__(self, settings, **kw):
        super().__init__(settings, **kw)
        self.objects: dict[str, dict[tuple[str, str], dict]] = {kind: {} for kind in KINDS}
        self.route = LocalRoute(settings.service_cidr)
        self.mode = proxy_mode(settings)
        self.forwarder = NftTable(settings.cluster, settings.service_cidr) if self.mode == "nftables" else Forwarder()
        self.synced = False
        self.served = 0
        self.skipped: set[tuple[str, str]] = set()  # slices of another family, said once each

    def on_delta(self, delta: Delta) -> None:
        meta = delta.object["metadata"]
        cache = self.objects[delta.kind]
        key = (meta.get("namespace") or "", meta["name"])
        if delta.type == "DELETED":
            cache.pop(key, None)
        else:
            cache[key] = delta.object
        if delta.kind == "EndpointSlice":
            self._say_skipped(key, delta.object if delta.type != "DELETED" else None)
        if self.synced:
            self._sync()

    def _say_skipped(self, key: tuple[str, str], endpoint_slice: dict | None) -> None:
        """Log a slice of another address family once (None: it is gone)."""
        if endpoint_slice is None:
            self.skipped.discard(key)
        elif table.other_family(endpoint_slice) and key not in self.skipped:
            self.skipped.add(key)
            self.log.info("proxy.slice_skipped", slice="/".join(key), address_type=endpoint_slice.get("addressType"),
                          why=f"the proxy forwards to {table.ADDRESS_TYPE} addresses only")

    def on_synced(self) -> None:
        self.synced = True
        self._sync()

    def _sync(self) -> None:
        built = table.build(list(self.objects["Service"].values()), list(self.objects["EndpointSlice"].values()))
        served = sum(1 for port in built.values() if port.endpoints)
        if served != self.served:
            self.log.info("proxy.sync", ports=len(built), with_endpoints=served)
            self.served = served
        self.forwarder.apply(built)

    def run(self) -> None:
        self.route.ensure()  # nftables mode too: kube-dns's ClusterIP and refusals when there is no endpoint
        self.log.info("proxy.mode", mode=self.mode)
        self.forwarder.start()
        try:
            super().run()
        finally:
            self.forwarder.stop()
            self.route.remove()


def proxy_mode(settings) -> str:
    """`KUBUS_PROXY_MODE`, or with `auto` the one the pod network needs; a mode this host cannot run
    is said so, and the userspace one runs instead."""
    wanted = settings.proxy_mode
    if wanted == "auto":
        wanted = "nftables" if settings.pod_network == "namespaces" else "userspace"
    if wanted == "nftables" and not nftables.available():
        structlog.get_logger("proxy").warning("proxy.mode_unavailable", mode="nftables", instead="userspace",
                                              why="the `nft` command is missing (make nettools installs it)")
        return "userspace"
    return wanted
