"""A container's log on disk: rotated and pruned by its writer, read back as one stream whose offsets
survive rotation; `tail` found from the end."""
from __future__ import annotations

import pytest

from actors.kubelet.logfiles import Limits, LogStream, RotatingLog, rotated
from actors.kubelet.logs import MAX_CHUNK, _read, tail_start


def write(tmp_path, data: bytes, limits=Limits(100, 3), chunk: int = 7):
    path = tmp_path / "c.0.log"
    log = RotatingLog(path, limits)
    for i in range(0, len(data), chunk):
        log.write(data[i:i + chunk])
    log.close()
    return path


def lines(n: int, width: int = 9) -> bytes:
    return b"".join(f"{i:0{width}d}\n".encode() for i in range(n))


def test_files_stay_within_size_times_count(tmp_path):
    path = write(tmp_path, lines(1000))
    files = [path] + [f for _, f in rotated(path)]
    assert len(files) == 3 and all(f.stat().st_size <= 100 for f in files)


def test_offsets_survive_rotation(tmp_path):
    data = lines(1000)
    path = write(tmp_path, data)
    with LogStream.open(path) as stream:
        assert stream.end == len(data) and stream.first == rotated(path)[0][0] == len(data) - 300
        assert stream.read(stream.first, 1000) == data[stream.first:]
        assert stream.read(stream.first + 5, 42) == data[stream.first + 5:stream.first + 47]


def test_a_reader_behind_the_pruned_files_goes_on_from_the_oldest_kept(tmp_path):
    data = lines(1000)
    path = write(tmp_path, data)
    with LogStream.open(path) as stream:
        reply = _read(stream, {"offset": 10})
    assert reply["text"].encode() == data[-len(reply["text"]):] and reply["offset"] == len(data)


def test_a_writer_that_starts_again_continues_the_stream(tmp_path):
    path = write(tmp_path, lines(30))
    write(tmp_path, lines(5))
    with LogStream.open(path) as stream:
        assert stream.end == len(lines(30)) + len(lines(5))


@pytest.mark.parametrize("data, n, want", [
    pytest.param(b"a\nb\nc\n", 2, b"b\nc\n", id="two-of-three"),
    pytest.param(b"a\nb\nc", 2, b"b\nc", id="last-line-unterminated"),
    pytest.param(b"a\nb\nc\n", 5, b"a\nb\nc\n", id="more-than-there-are"),
    pytest.param(b"a\nb\nc\n", 0, b"", id="zero"),
    pytest.param(b"", 3, b"", id="empty"),
    pytest.param(b"\n\n\n", 1, b"\n", id="blank-lines"),
])
def test_tail(tmp_path, data, n, want):
    path = write(tmp_path, data, Limits(1 << 20, 2))
    with LogStream.open(path) as stream:
        reply = _read(stream, {"tail": n})
    assert reply["text"].encode() == want and reply["offset"] == len(data)


def test_tail_across_rotated_files(tmp_path):
    data = lines(100)
    path = write(tmp_path, data, Limits(64, 5))
    with LogStream.open(path) as stream:
        assert stream.read(tail_start(stream, 3), 1000) == lines(100)[-30:]


def test_tail_looks_back_no_further_than_a_chunk(tmp_path):
    data = b"x" * (MAX_CHUNK * 3) + b"\nlast\n"
    path = write(tmp_path, data, Limits(1 << 20, 2), chunk=1 << 16)
    with LogStream.open(path) as stream:
        assert tail_start(stream, 2) == len(data) - MAX_CHUNK


def test_limit_bytes_cuts_from_the_tails_start(tmp_path):
    path = write(tmp_path, lines(10), Limits(1 << 20, 2))
    with LogStream.open(path) as stream:
        reply = _read(stream, {"tail": 3, "limitBytes": 15})
    assert reply["text"] == "000000007\n00000" and reply["offset"] == 85


def test_a_log_missing_for_a_moment_leaves_the_reader_where_it_was():
    """Between a rotation's rename and the new file the runtime has no log path: the answer was offset 0,
    and `logs -f` read the whole output again from its first line (seen under load)."""
    from types import SimpleNamespace

    from actors.kubelet.logs import read_logs

    container = SimpleNamespace(name="main", instances=1, running=True)
    worker = SimpleNamespace(inits=[], apps=[container], uid="u", runtime=SimpleNamespace(log_path=lambda *_: None))
    assert read_logs(worker, "steady", {"offset": 16384}) == {"ok": True, "text": "", "offset": 16384,
                                                              "running": True}
    assert read_logs(worker, "steady", {})["offset"] == 0
