"""port-forward to a pod, relayed: the runtime's PortForward URL upgraded to SPDY (`portforward.k8s.io`),
and for each connection the caller forwards (a request id) an error and a data stream with its port,
opened as kubectl opens them. Frames carry the request id `r` (and the port `p` on the first): data on
channel 1, the runtime's error text on 3, and `[255, 1|3]` when the runtime closed that stream."""
from __future__ import annotations

import asyncio

from actors.kubelet.streaming import CLOSE, CONNECT_TIMEOUT_S, Session
from runtime import spdy
from runtime.streams import MAX_FRAME

PROTOCOL = "portforward.k8s.io"
DATA, ERROR = 1, 3


class PortForward(Session):
    async def _connect(self) -> tuple[spdy.Connection, dict[str, spdy.Stream]]:
        connection, _ = await asyncio.wait_for(spdy.upgrade(self.url, (PROTOCOL,)), CONNECT_TIMEOUT_S)
        self.runner = asyncio.ensure_future(connection.run())
        self.connection, self.pumps = connection, []
        return connection, {}

    async def _relay(self, connection: spdy.Connection, streams: dict[str, spdy.Stream]) -> None:
        waiting = [asyncio.ensure_future(self._in(streams)), asyncio.ensure_future(self._idle()), self.runner]
        try:
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in [*waiting, *self.pumps]:
                task.cancel()

    async def _take(self, frame: dict, channel: int, data: bytes, streams: dict[str, spdy.Stream]) -> None:
        """The caller's bytes of connection `r` (its first frame opens the runtime's pair), or its close."""
        request, port = frame.get("r"), frame.get("p")
        if not isinstance(request, str) or len(request) > 32:
            return
        stream = streams.get(request)
        if stream is None:
            if channel == CLOSE or not isinstance(port, int):
                return
            stream = streams[request] = await self._pair(request, port)
        if stream.closed:
            return
        if channel == CLOSE:
            await stream.close()
        elif data:
            await stream.write(data)

    async def _pair(self, request: str, port: int) -> spdy.Stream:
        headers = {"port": str(port), "requestid": request}
        error = await self.connection.open({"streamtype": "error", **headers})
        await error.close()  # nothing is written to it
        data = await self.connection.open({"streamtype": "data", **headers})
        self.pumps += [asyncio.ensure_future(self._back(error, request, ERROR)),
                       asyncio.ensure_future(self._back(data, request, DATA))]
        return data

    async def _back(self, stream: spdy.Stream, request: str, channel: int) -> None:
        while (data := await stream.read()) is not None:
            for at in range(0, len(data), MAX_FRAME):
                await self.credit.take()
                self.to_caller({"c": channel, "r": request, "d": data[at:at + MAX_FRAME]})
        await self.credit.take()
        self.to_caller({"c": CLOSE, "r": request, "d": bytes([channel])})
