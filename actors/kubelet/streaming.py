"""exec / attach of a pod's container, relayed: the runtime's single-use stream URL (CRI Exec/Attach) is
upgraded to SPDY/3.1 speaking `v4.channel.k8s.io` (runtime/spdy.py), and its streams travel as channel
frames between it and the caller's session over the bus (runtime/streams.py has the protocol,
docs/containers-streaming.md the why). The relays run on one asyncio loop of their own thread: the kubelet's loop only routes frames
and never waits on a stream.

Only the apiserver's broker user asks for a session (the kubelet checks, as for `logs`); only the
requester the apiserver names (`x-kubus-user`) is believed on the session's inbox.
"""
from __future__ import annotations

import asyncio
import threading
import time

import structlog

from api.status import StatusError, bad_request
from bus import codec
from bus.message import Message
from bus.messages import Request
from runtime import spdy
from runtime.streams import ACK_EVERY, MAX_FRAME, WINDOW, Credit

log = structlog.get_logger()
PROTOCOL = "v4.channel.k8s.io"
IDLE_TIMEOUT_S = 4 * 3600.0  # containerd's stream idle timeout
STALL_TIMEOUT_S = 120.0  # output held this long for want of the caller's acknowledgement ends the session
CONNECT_TIMEOUT_S = 30.0
CLOSE = 255  # v5's half-close of a channel (`[255, 0]`: stdin), a FIN on the runtime's stdin stream
STREAM_TYPES = ("stdin", "stdout", "stderr")
MAX_INBOX = 2 * WINDOW + 8  # frames a caller keeping to its window (and its acks, its end) can have queued


def no_containers(req: Request, node: str) -> StatusError:
    """exec, attach or portforward to a pod of a simulated node (the apiserver's words when no kubelet serves it)."""
    return bad_request(f'pod "{req.name}" runs on node "{node}", whose kubelet runs no containers (a simulated or '
                       f'hollow node): {req.verb} needs a cri node')


def runtime_target(worker, name: str, req: Request) -> str:
    """The runtime's id of the container a session names, or the StatusError Kubernetes answers."""
    if worker is None:
        raise StatusError("NotFound", f'pods "{name}" not found')
    if getattr(worker.runtime, "name", "") != "containerd":
        raise bad_request(f'pod "{name}" runs on a node without a container runtime ({worker.runtime.name}): '
                          f"{req.verb} needs a cri node")
    if req.verb == "portforward":
        sandbox = worker.runtime.sandboxes.pods.get(worker.uid)
        if sandbox is None:
            raise bad_request(f'unable to upgrade connection: pod "{name}" has no sandbox yet')
        return sandbox.id
    container = req.options.get("container") or worker.apps[0].name
    c = next((c for c in worker.inits + worker.apps if c.name == container), None)
    if c is None:
        raise bad_request(f'container {container} is not valid for pod {name}')
    inst = worker.runtime.instances.get(c.cid) if c.running else None
    if inst is None or inst.id is None:
        raise bad_request(f'unable to upgrade connection: container not found ("{container}")')
    return inst.id


def stream_url(runtime, runtime_id: str, req: Request) -> str:
    """(On a worker thread: a gRPC call.) The runtime's single-use URL for the session."""
    o = req.options
    streams = dict(stdin=bool(o.get("stdin")), stdout=bool(o.get("stdout")), stderr=bool(o.get("stderr")),
                   tty=bool(o.get("tty")))
    if req.verb == "attach":
        return runtime.client.attach_url(runtime_id, **streams)
    if req.verb == "portforward":
        return runtime.client.port_forward_url(runtime_id, list(o.get("ports") or []))
    return runtime.client.exec_url(runtime_id, list(o.get("command") or []), **streams)


class Relays:
    """Every open session of this kubelet, on one asyncio loop (started with the first)."""

    def __init__(self, bus, names, kinds: dict[str, type] | None = None):
        self.bus, self.names = bus, names
        self.kinds = kinds or {}  # a verb's own Session class (portforward.py's), else Session
        self.loop: asyncio.AbstractEventLoop | None = None

    def running_loop(self) -> asyncio.AbstractEventLoop:
        """The relays' loop, its thread started with the first session."""
        if self.loop is None:
            self.loop = asyncio.new_event_loop()
            threading.Thread(target=self.loop.run_forever, name="kubelet-streams", daemon=True).start()
        return self.loop

    def start(self, msg: Message, req: Request, requester: str, node: str, url: str) -> None:
        """(On the bus's loop.) The session's inbox, then the relay."""
        session = self.kinds.get(req.verb, Session)(self, msg, req, requester, url)
        queue = self.names.kubelet_stream_queue(node, req.options["session"])
        channel = self.bus.channel

        def bound(_frame) -> None:
            session.tag = self.bus.consume_auto_ack(queue, session.on_message, on_ok=session.begin)

        channel.queue_declare(queue, exclusive=True, auto_delete=True,
                              arguments={"x-max-length": MAX_INBOX, "x-overflow": "reject-publish"},
                              callback=lambda _f: channel.queue_bind(queue, self.names.streams,
                                                                     routing_key=req.options["session"],
                                                                     callback=bound))


class Session:
    def __init__(self, relays: Relays, msg: Message, req: Request, requester: str, url: str):
        self.relays, self.bus, self.url, self.requester = relays, relays.bus, url, requester
        self.reply_to, self.corr = msg.reply_to, msg.correlation_id
        self.what = f"{req.verb} {req.namespace}/{req.name}"
        self.options = req.options
        self.runner: asyncio.Future | None = None
        self.tag: str | None = None
        self.inbox: asyncio.Queue = asyncio.Queue()  # bounded by the caller's window
        self.received = 0
        self.last = time.monotonic()
        self.overrun = False
        self.credit = Credit(stall_s=STALL_TIMEOUT_S)

    # ---- on the bus's loop ----------------------------------------------------------------------
    def begin(self) -> None:
        asyncio.run_coroutine_threadsafe(self.run(), self.relays.running_loop())

    def on_message(self, msg: Message) -> None:
        if msg.user_id != self.requester:
            log.warning("kubelet.stream_frame_refused", session=self.what, user=msg.user_id)
            return
        try:
            frame = codec.decode(msg.raw, msg.headers, MAX_FRAME + 1024, 4, binary=True)
        except codec.DecodeError:
            return
        self._hand_on(frame)

    def _hand_on(self, frame: dict) -> None:
        if self.relays.loop is not None:
            self.relays.loop.call_soon_threadsafe(self._put, frame)

    def _put(self, frame: dict) -> None:
        """(On the relays' loop.) A caller that ignores its window ends its session: the inbox stays bounded."""
        if self.overrun:
            return
        if self.inbox.qsize() >= MAX_INBOX:
            log.warning("kubelet.stream_overrun", session=self.what, frames=self.inbox.qsize())
            self.overrun, frame = True, {"end": True}
        self.inbox.put_nowait(frame)

    def to_caller(self, frame: dict) -> None:
        """A frame to the caller's reply address (not `mandatory`: RabbitMQ returns every such message to
        a direct reply-to address. A caller gone without a word stops acknowledging: STALL_TIMEOUT_S)."""
        bus = self.bus
        bus.call_soon(lambda: bus.publish("", self.reply_to, frame, type="reply", correlation_id=self.corr,
                                          user_id=bus.user))

    # ---- on the relays' loop --------------------------------------------------------------------
    async def run(self) -> None:
        try:
            try:
                connection, streams = await self._connect()
            except (OSError, asyncio.TimeoutError, spdy.ProtocolError) as exc:
                status = StatusError("InternalError", f"error dialing the container runtime's stream: {exc}")
                self.to_caller({"ok": False, "status": status.to_dict()})
                return
            self.to_caller({"ok": True})
            try:
                await self._relay(connection, streams)
            finally:
                connection.close_transport()
        except Exception:
            log.exception("kubelet.stream_failed", session=self.what)
        finally:
            self.to_caller({"end": True})
            tag, bus = self.tag, self.bus
            if tag is not None:
                bus.call_soon(lambda: bus.cancel_consumer(tag))  # the inbox is auto-delete: it goes too

    async def _connect(self) -> tuple[spdy.Connection, dict[str, spdy.Stream]]:
        """The runtime's stream URL upgraded to SPDY (its WebSocket side has no half-close, which
        `kubectl cp` needs), and the streams kubectl would open: error first, then the asked ones."""
        connection, _ = await asyncio.wait_for(spdy.upgrade(self.url, (PROTOCOL,)), CONNECT_TIMEOUT_S)
        self.runner = asyncio.ensure_future(connection.run())
        streams = {"error": await connection.open({"streamtype": "error"})}
        await streams["error"].close()  # nothing is written to it
        for name in STREAM_TYPES:
            if self.options.get(name):
                streams[name] = await connection.open({"streamtype": name})
        if self.options.get("tty"):
            streams["resize"] = await connection.open({"streamtype": "resize"})
        return connection, streams

    async def _relay(self, connection: spdy.Connection, streams: dict[str, spdy.Stream]) -> None:
        outputs = [asyncio.ensure_future(self._out(streams[name], channel))
                   for name, channel in (("stdout", 1), ("stderr", 2), ("error", 3)) if name in streams]
        others = [asyncio.ensure_future(self._in(streams)), asyncio.ensure_future(self._idle())]
        try:
            ended = asyncio.ensure_future(asyncio.gather(*outputs))
            await asyncio.wait([ended, *others], return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in [*outputs, *others, self.runner]:
                task.cancel()

    async def _out(self, stream: spdy.Stream, channel: int) -> None:
        """One of the runtime's output streams to the caller, a window of frames at a time."""
        while (data := await stream.read()) is not None:
            self.last = time.monotonic()
            for at in range(0, len(data), MAX_FRAME):
                await self.credit.take()
                self.to_caller({"c": channel, "d": data[at:at + MAX_FRAME]})

    async def _in(self, streams: dict[str, spdy.Stream]) -> None:
        """The caller's frames to the runtime: stdin (and its close), resize; its credits; its end."""
        while True:
            frame = await self.inbox.get()
            self.last = time.monotonic()
            if frame.get("end"):
                return
            if "ack" in frame:
                self.credit.acked(frame["ack"])
                continue
            channel, data = frame.get("c"), frame.get("d")
            if not isinstance(channel, int) or not isinstance(data, bytes):
                continue
            self.received += 1
            if self.received % ACK_EVERY == 0:
                self.to_caller({"ack": self.received})
            await self._take(frame, channel, data, streams)

    async def _take(self, frame: dict, channel: int, data: bytes, streams: dict[str, spdy.Stream]) -> None:
        """One data frame of the caller's: stdin, its close, or a resize."""
        target = streams.get({0: "stdin", 4: "resize", CLOSE: "stdin"}.get(channel, ""))
        if target is None or target.closed:
            return
        if channel != CLOSE:
            await target.write(data)
        elif data[:1] == b"\x00":
            await target.close()

    async def _idle(self) -> None:
        while time.monotonic() - self.last < IDLE_TIMEOUT_S:
            await asyncio.sleep(60)
