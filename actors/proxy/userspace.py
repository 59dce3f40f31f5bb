"""kube-proxy's old userspace mode, for pods that share the host's network: a listening socket per
ClusterIP:port (and localhost node port), TCP or UDP (`actors.proxy.udp`), in an asyncio loop on its
own thread. Each new connection
goes to an endpoint chosen at random (ClientIP affinity first, when asked for), dialled with the
userspace proxier's timeouts (250 ms, 500 ms, 1 s, 2 s), moving to another endpoint after a failure;
bytes are copied both ways with half-close. A port with no usable endpoint has no listener, so
clients get ECONNREFUSED at once, as kube-proxy's REJECT gives them."""
from __future__ import annotations

import asyncio
import random
import threading
import time

import structlog

from actors.proxy import udp
from actors.proxy.table import Port, Table

Key = tuple[str, int, str]  # ip, port, protocol

DIAL_TIMEOUTS_S = (0.25, 0.5, 1.0, 2.0)
CHUNK = 64 << 10
MAX_STICKY = 100_000  # remembered (port, client) choices before the expired ones are swept
log = structlog.get_logger("proxy")


class Forwarder:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.table: Table = {}
        self.servers: dict[Key, asyncio.base_events.Server | udp.ServicePort] = {}
        self.sticky: dict[tuple[Key, str], tuple[tuple[str, int], float]] = {}
        self.thread = threading.Thread(target=self.loop.run_forever, name="proxy-forwarder", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def apply(self, table: Table) -> None:
        """From any thread: serve `table` from now on (listeners opened and closed to match)."""
        asyncio.run_coroutine_threadsafe(self._apply(table), self.loop)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._apply({}), self.loop).result(timeout=5)
        self.loop.call_soon_threadsafe(self.loop.stop)

    # ---- listeners -----------------------------------------------------------------------------
    async def _apply(self, table: Table) -> None:
        self.table = table
        for key in [k for k in self.servers if not (table.get(k) and table[k].endpoints)]:
            self.servers.pop(key).close()
        for key, port in table.items():
            if port.endpoints and key not in self.servers:
                await self._listen(key, port)

    async def _listen(self, key: Key, port: Port) -> None:
        try:
            if key[2] == "UDP":
                _, protocol = await self.loop.create_datagram_endpoint(
                    lambda: udp.ServicePort(lambda client, k=key: self._choose(k, self.table[k], client, False)),
                    local_addr=key[:2], reuse_port=True)
                self.servers[key] = protocol
            else:
                self.servers[key] = await asyncio.start_server(lambda r, w, k=key: self._serve(k, r, w), key[0],
                                                               key[1], reuse_address=True)
        except OSError as exc:
            log.warning("proxy.listen_failed", service=port.service, address=f"{key[0]}:{key[1]}/{key[2]}",
                        error=str(exc))

    # ---- connections ---------------------------------------------------------------------------
    async def _serve(self, key: Key, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        port = self.table.get(key)
        client = (writer.get_extra_info("peername") or ("?",))[0]
        upstream = await self._dial(key, port, client) if port else None
        if upstream is None:
            writer.close()
            return
        up_reader, up_writer = upstream
        await asyncio.gather(_copy(reader, up_writer), _copy(up_reader, writer))
        for w in (writer, up_writer):
            w.close()

    async def _dial(self, key: Key, port: Port, client: str):
        for attempt, timeout in enumerate(DIAL_TIMEOUTS_S):
            endpoint = self._choose(key, port, client, retry=attempt > 0)
            if endpoint is None:
                return None
            try:
                return await asyncio.wait_for(asyncio.open_connection(*endpoint), timeout)
            except (OSError, asyncio.TimeoutError) as exc:
                log.info("proxy.dial_failed", service=port.service, endpoint=f"{endpoint[0]}:{endpoint[1]}",
                         error=str(exc) or type(exc).__name__)
        log.info("proxy.no_endpoint_answered", service=port.service, client=client)
        return None

    def _choose(self, key: Key, port: Port, client: str, retry: bool) -> tuple[str, int] | None:
        port = self.table.get(key, port)
        if not port.endpoints:
            return None
        now = time.monotonic()
        remembered = self.sticky.get((key, client)) if port.affinity_s and not retry else None
        if remembered and remembered[0] in port.endpoints and now - remembered[1] < port.affinity_s:
            endpoint = remembered[0]
        else:
            endpoint = random.choice(port.endpoints)
        if port.affinity_s:
            if len(self.sticky) > MAX_STICKY:
                self.sticky = {k: v for k, v in self.sticky.items() if now - v[1] < port.affinity_s}
            self.sticky[(key, client)] = (endpoint, now)
        return endpoint


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Until EOF, then half-close the other side (a reset or a closed peer ends it too)."""
    try:
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except (ConnectionError, OSError):
        pass
