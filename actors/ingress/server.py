"""The ingress actor's HTTP side: an aiohttp server on its own thread and event loop. Each request is
routed by `choose(host, path)` — a backend address, or the status to answer (404: no rule matches;
503: the Service has no ready endpoint) — and streamed both ways, with X-Forwarded-For/Host/Proto.
A request body keeps its Content-Length (backends that read no chunked bodies still work)."""
from __future__ import annotations

import asyncio
import threading
from typing import Callable

import aiohttp
import structlog
from aiohttp import web

log = structlog.get_logger("ingress")
HOP_BY_HOP = {"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
              "transfer-encoding", "upgrade", "host"}  # RFC 9110 §7.6.1; Host is set anew
CHUNK = 64 << 10
Choice = tuple[str, int] | int  # an endpoint, or the status to answer
Choose = Callable[[str, str], Choice]
ANSWERS = {404: "default backend - 404", 503: "503 Service Temporarily Unavailable",
           502: "502 Bad Gateway", 504: "504 Gateway Time-out"}


def forwarded(request: web.Request) -> dict[str, str]:
    """The request's end-to-end headers, and where it came from (appended to X-Forwarded-For)."""
    headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP}
    client = request.remote or ""
    before = request.headers.get("X-Forwarded-For")
    headers.update({"X-Forwarded-For": f"{before}, {client}" if before else client, "X-Real-IP": client,
                    "X-Forwarded-Host": request.host, "X-Forwarded-Proto": request.scheme,
                    "Host": request.host})
    return headers


class IngressServer:
    def __init__(self, address: str, choose: Choose):
        self.host, _, port = address.rpartition(":")
        self.port, self.choose = int(port), choose
        self.loop = asyncio.new_event_loop()
        self.runner: web.AppRunner | None = None
        self.session: aiohttp.ClientSession | None = None

    def start(self) -> None:
        ready = threading.Event()
        threading.Thread(target=self._run, args=(ready,), name="ingress-http", daemon=True).start()
        ready.wait(10)

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._serve())
        ready.set()
        self.loop.run_forever()

    async def _serve(self) -> None:
        app = web.Application(client_max_size=0)
        app.router.add_route("*", "/{path:.*}", self.handle)
        self.session = aiohttp.ClientSession(auto_decompress=False, timeout=aiohttp.ClientTimeout(connect=5,
                                                                                                    sock_read=60))
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        await web.TCPSite(self.runner, self.host, self.port).start()

    def stop(self) -> None:
        async def closing() -> None:
            await self.session.close()
            await self.runner.cleanup()
        asyncio.run_coroutine_threadsafe(closing(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        choice = self.choose(request.host.rsplit(":", 1)[0] if not request.host.startswith("[") else request.host,
                             request.path)
        if isinstance(choice, int):
            return web.Response(status=choice, text=ANSWERS.get(choice, str(choice)))
        try:
            return await self._forward(request, choice)
        except asyncio.TimeoutError:
            return web.Response(status=504, text=ANSWERS[504])
        except aiohttp.ClientError as exc:
            log.info("ingress.backend_failed", backend=f"{choice[0]}:{choice[1]}", error=str(exc)[:200])
            return web.Response(status=502, text=ANSWERS[502])

    async def _forward(self, request: web.Request, endpoint: tuple[str, int]) -> web.StreamResponse:
        url = f"http://{endpoint[0]}:{endpoint[1]}{request.rel_url}"
        body = request.content if request.body_exists else None
        async with self.session.request(request.method, url, headers=forwarded(request), data=body,
                                        allow_redirects=False) as answer:
            response = web.StreamResponse(status=answer.status, reason=answer.reason)
            for key, value in answer.headers.items():
                if key.lower() not in HOP_BY_HOP and key.lower() != "content-length":
                    response.headers.add(key, value)
            response.content_length = answer.content_length  # streamed, with the backend's length if it gave one
            await response.prepare(request)
            async for chunk in answer.content.iter_chunked(CHUNK):
                await response.write(chunk)
            await response.write_eof()
            return response
