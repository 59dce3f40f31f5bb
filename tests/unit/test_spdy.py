"""runtime/spdy.py's framing between a client and a server Connection over an in-memory pipe, and
runtime/streams.py's window (pure logic: the real peers are in tests/integration/cri and tests/e2e)."""
from __future__ import annotations

import asyncio
import struct
import zlib

import pytest

from runtime import spdy
from runtime.streams import Credit


def pipe():
    """(read, write) of one direction: what is written is read, b"" once closed."""
    queue: asyncio.Queue = asyncio.Queue()

    async def read() -> bytes:
        return await queue.get()

    async def write(data: bytes) -> None:
        queue.put_nowait(data)
    return read, write, lambda: queue.put_nowait(b"")


@pytest.mark.parametrize("headers", [{}, {"streamtype": "error"},
                                     {"streamtype": "data", "port": "80", "requestid": "12"}])
def test_header_blocks_round_trip_through_one_compression_context(headers):
    out, back = zlib.compressobj(zdict=spdy.zdict), zlib.decompressobj(zdict=spdy.zdict)
    for _ in range(3):  # later blocks lean on the context the earlier ones left
        assert spdy.decode_headers(back, spdy.encode_headers(out, headers)) == headers


def test_names_go_lower_case_on_the_wire():
    out, back = zlib.compressobj(zdict=spdy.zdict), zlib.decompressobj(zdict=spdy.zdict)
    assert spdy.decode_headers(back, spdy.encode_headers(out, {"streamType": "stdin"})) == {"streamtype": "stdin"}


async def _pair():
    to_server, to_client = pipe(), pipe()
    opened: asyncio.Queue = asyncio.Queue()
    server = spdy.Connection(to_server[0], to_client[1], client=False, on_stream=opened.put_nowait)
    client = spdy.Connection(to_client[0], to_server[1], client=True)
    tasks = [asyncio.ensure_future(server.run()), asyncio.ensure_future(client.run())]
    return client, server, opened, tasks, (to_server[2], to_client[2])


def test_streams_carry_headers_data_and_half_closes_both_ways():
    async def scenario():
        client, server, opened, tasks, _ = await _pair()
        ours = await client.open({"streamtype": "stdin"})
        theirs = await asyncio.wait_for(opened.get(), 2)
        await ours.write(b"hello")
        await ours.close()
        got = [await theirs.read(), await theirs.read()]
        await theirs.write(b"x" * 70000)
        await theirs.close()
        back = b""
        while (piece := await ours.read()) is not None:
            back += piece
        for task in tasks:
            task.cancel()
        return theirs.headers, theirs.id, got, len(back)
    assert asyncio.run(scenario()) == ({"streamtype": "stdin"}, 1, [b"hello", None], 70000)


def test_client_stream_ids_are_odd_and_rising():
    async def scenario():
        client, _, opened, tasks, _ = await _pair()
        ids = [(await client.open({"n": str(i)})).id for i in range(3)]
        seen = [(await asyncio.wait_for(opened.get(), 2)).headers["n"] for _ in range(3)]
        for task in tasks:
            task.cancel()
        return ids, seen
    assert asyncio.run(scenario()) == ([1, 3, 5], ["0", "1", "2"])


@pytest.mark.parametrize("frame, then", [
    (spdy.control(spdy.PING, 0, struct.pack(">I", 7)), "answered"),
    (spdy.control(spdy.GOAWAY, 0, struct.pack(">II", 0, 0)), "ends"),
])
def test_control_frames(frame, then):
    async def scenario():
        into, out = pipe(), pipe()
        connection = spdy.Connection(into[0], out[1], client=True)
        runner = asyncio.ensure_future(connection.run())
        await into[1](frame)
        if then == "answered":
            answer = await asyncio.wait_for(out[0](), 2)
            runner.cancel()
            return answer == frame
        with pytest.raises(spdy.ProtocolError):
            await asyncio.wait_for(runner, 2)
        return True
    assert asyncio.run(scenario())


def test_the_end_of_the_transport_ends_every_stream():
    async def scenario():
        client, _, opened, tasks, (close_to_server, close_to_client) = await _pair()
        ours = await client.open({})
        close_to_client()
        return await asyncio.wait_for(ours.read(), 2)
    assert asyncio.run(scenario()) is None


def test_a_credit_window_holds_the_sender_until_acknowledged():
    async def scenario():
        credit = Credit(window=2)
        await credit.take()
        await credit.take()
        third = asyncio.ensure_future(credit.take())
        await asyncio.sleep(0)
        held = not third.done()
        credit.acked(5)  # more than was sent: not believed
        await asyncio.sleep(0)
        still_held = not third.done()
        credit.acked(1)
        await asyncio.wait_for(third, 1)
        return held, still_held, credit.sent
    assert asyncio.run(scenario()) == (True, True, 3)


def test_a_window_shut_too_long_says_the_reader_is_gone():
    async def scenario():
        credit = Credit(window=1, stall_s=0.05)
        await credit.take()
        with pytest.raises(asyncio.TimeoutError):
            await credit.take()
        return credit.sent
    assert asyncio.run(scenario()) == 1
