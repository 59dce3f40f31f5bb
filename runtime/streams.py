"""An exec / attach / port-forward session over the bus, as a client sees it (docs/containers-streaming.md).

The client asks `{c}.api` (verb `exec`, `attach` or `portforward`, authorized by an apiserver, which
hands it to the pod's kubelet); the kubelet answers on the client's direct reply-to with frames:
first `{"ok": True}` (or a refusal `{"ok": False, "status": …}`), then `{"c": channel, "d": bytes}`
frames, `{"ack": n}` credits and finally `{"end": True}`. The client sends its frames to
`{c}.streams` with the session id as routing key, where only the kubelet's session inbox is bound.

Flow control is a window of frames each way: a sender stops after WINDOW frames the other side has
not acknowledged; the receiver acknowledges what it handed on (ACK_EVERY at a time). Neither side's
memory nor the broker's queue grows with a slow reader.
"""
from __future__ import annotations

import asyncio
import json
import secrets
from dataclasses import dataclass
from typing import Any

from api.status import StatusError
from config.answerers import api_answerers

WINDOW = 64  # frames in flight each way
ACK_EVERY = 16
MAX_FRAME = 32 * 1024  # bytes of data in one frame
OPEN_TIMEOUT_S = 30.0
CLOSE = 255  # a frame on this channel closes the channel its data names (v5.channel.k8s.io)  # kubectl's stream creation timeout is 30 s too


def new_session() -> str:
    return secrets.token_urlsafe(18)


class Credit:
    """A sender's window: `await take()` before each frame, `acked(n)` as the other side says; with
    `stall_s`, a window that stays shut that long raises TimeoutError (the reader is gone)."""

    def __init__(self, window: int = WINDOW, stall_s: float | None = None):
        self.window, self.sent, self.acked_n, self.stall_s = window, 0, 0, stall_s
        self._room = asyncio.Event()
        self._room.set()

    async def take(self) -> None:
        while self.sent - self.acked_n >= self.window:
            self._room.clear()
            await asyncio.wait_for(self._room.wait(), self.stall_s)
        self.sent += 1

    def acked(self, n: Any) -> None:
        if isinstance(n, int) and self.acked_n < n <= self.sent:
            self.acked_n = n
            self._room.set()

    def release(self) -> None:
        """The session ended: nobody waits for room any more."""
        self.acked_n = self.sent
        self._room.set()


class ClientStream:
    """One session of a client (the gateway's person), on an asyncio loop; the client's bus thread
    hands frames over. `frames` yields data and end frames; `send` sends one data frame."""

    def __init__(self, client, verb: str, namespace: str, name: str, options: dict):
        self.client, self.loop = client, asyncio.get_running_loop()
        self.session = new_session()
        self.inbox: asyncio.Queue = asyncio.Queue()  # bounded by the kubelet's window
        self.credit, self.received, self.closed, self.overrun = Credit(), 0, False, False
        body = {"verb": verb, "kind": "Pod", "namespace": namespace, "name": name, "object": None,
                "resourceVersion": None, "options": {**options, "session": self.session}}
        self.corr: str | None = None
        gone = StatusError("ServiceUnavailable", "the kubelet's end of the stream is gone")
        self._gone = lambda _why: self._from_bus(gone)  # one callback: the bus keeps returns by message id
        self._opened = self.loop.create_future()

        def open_() -> None:
            self.corr = client.rpc.open_stream(client.names.api, "apiserver", body, self._from_bus,
                                               answerers=api_answerers(client.names.cluster, verb),
                                               user_id=client.bus.user)
        client.bus.run_on_loop(open_)

    def _from_bus(self, frame: dict | StatusError) -> None:
        """(On the bus's thread.) Never raises there: a frame after the caller's loop ended is dropped."""
        try:
            self.loop.call_soon_threadsafe(self._take, frame)
        except RuntimeError:  # the loop is closed: nobody reads this session any more
            pass

    def _take(self, frame: dict | StatusError) -> None:
        if not self._opened.done():
            self._opened.set_result(frame)
        elif isinstance(frame, dict) and "ack" in frame:
            self.credit.acked(frame["ack"])
        elif self.inbox.qsize() < 2 * WINDOW + 8:  # a kubelet keeping to the window never fills it
            self.inbox.put_nowait(frame)
        elif not self.overrun:
            self.overrun = True
            self.inbox.put_nowait(StatusError("InternalError", "the kubelet overran the stream's window"))

    async def opened(self) -> None:
        """Once the kubelet has the runtime's stream; raise the StatusError of a refusal."""
        try:
            first = await asyncio.wait_for(self._opened, OPEN_TIMEOUT_S)
        except asyncio.TimeoutError:
            self.close()
            raise StatusError("Timeout", "the kubelet did not open the stream in time") from None
        if isinstance(first, StatusError):
            raise first
        if not first.get("ok"):
            raise StatusError.from_dict(first.get("status") or {})

    async def next(self) -> dict | StatusError:
        """The next data frame `{c, d}`, `{"end": True}`, or a StatusError (the bus is lost)."""
        frame = await self.inbox.get()
        if isinstance(frame, dict) and "c" in frame:
            self.received += 1
            if self.received % ACK_EVERY == 0:
                self._publish({"ack": self.received})
        return frame

    async def send(self, channel: int, data: bytes, **more: Any) -> None:
        """Data on a channel (in frames of MAX_FRAME, at least one), with `more` keys on each frame
        (a port-forward's request id and port)."""
        for at in range(0, max(len(data), 1), MAX_FRAME):
            await self.credit.take()
            self._publish({"c": channel, "d": data[at:at + MAX_FRAME], **more})

    def _publish(self, frame: dict) -> None:
        """A frame to the session's inbox at the kubelet; if it is gone (the kubelet's connection with
        it), the session ends with a StatusError."""
        if self.closed:
            return
        bus, names = self.client.bus, self.client.names
        bus.run_on_loop(lambda: bus.publish(names.streams, self.session, frame, type="frame", user_id=bus.user,
                                            message_id=self.session, mandatory=True, on_return=self._gone))

    def close(self) -> None:
        """Tell the kubelet the session is over (it closes the runtime's stream) and stop listening."""
        if self.closed:
            return
        self._publish({"end": True})
        self.closed = True
        self.credit.release()
        rpc = self.client.rpc
        self.client.bus.run_on_loop(lambda: rpc.close_stream(self.corr) if self.corr else None)


@dataclass
class Finished:
    """What an exec left: its output and the error channel's Status (None: the stream just ended)."""

    stdout: bytes = b""
    stderr: bytes = b""
    status: dict | None = None

    @property
    def exit_code(self) -> int | None:
        """0 on Success; the `ExitCode` cause of a NonZeroExitCode failure; None without a Status."""
        if self.status is None:
            return None
        if self.status.get("status") == "Success":
            return 0
        causes = (self.status.get("details") or {}).get("causes") or []
        return next((int(c["message"]) for c in causes if "ExitCode" in (c.get("reason"), c.get("type"))), None)


async def exec_once(client, namespace: str, name: str, command: list[str], stdin: bytes = b"",
                    container: str | None = None) -> Finished:
    """Run `command` in the pod's container over the bus, feed it `stdin` (then close it, as v5's
    `[255, 0]` does), and collect what it wrote until the stream ends (a StatusError when refused)."""
    options = {"command": command, "stdin": bool(stdin), "stdout": True, "stderr": True, "tty": False,
               **({"container": container} if container else {})}
    stream = ClientStream(client, "exec", namespace, name, options)
    try:
        await stream.opened()
        if stdin:
            await stream.send(0, stdin)
            await stream.send(CLOSE, b"\x00")
        done = Finished()
        while isinstance(frame := await stream.next(), dict) and not frame.get("end"):
            if frame["c"] == 1:
                done.stdout += frame["d"]
            elif frame["c"] == 2:
                done.stderr += frame["d"]
            elif frame["c"] == 3:
                done.status = json.loads(frame["d"])
        if isinstance(frame, StatusError):
            raise frame
        return done
    finally:
        stream.close()
